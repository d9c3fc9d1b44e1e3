// What an engine declares, in its own folder, to check a user's own module (a graph, a workflow, a
// service): the command-line option that names the module, the field of killpointTests' options
// that does, what the module must export, the options of its kind alone, and how its system is
// made. The command line, the API and the vitest helper read these from the registry
// (registry.ts: moduleEngines) and name no engine: an engine with a `module` field is one more kind
// of module for all three.

import type { SystemUnderTest } from '../engine.js';
import type { UserModuleOptions } from './target.js';

/** An option that belongs to one kind of module: its flag, the field of the options it sets, what it expects. */
export interface ModuleFlag {
  flag: `--${string}`;
  field: string;
  /** Its value in the help: NAME, FILE. */
  value: string;
  expected: string;
}

/** A user's module as given to an engine: its path, its input, and the fields of the engine's own flags. */
export type ModuleEngineOptions = UserModuleOptions & { effectsExport?: string } & Record<string, unknown>;

export interface ModuleEngine {
  /** The command-line option that names the module: `--langgraph`. */
  cliOption: `--${string}`;
  /** The field of killpointTests' options that names it: `langgraph`. */
  vitestField: string;
  /** The kind of module, for help: "your own LangGraph graph". */
  kind: string;
  /** What the module exports, for messages and help: "createGraph(ctx)". */
  exports: string;
  /** The options of this kind of module alone (the input and --effects-export are every module's). */
  flags: readonly ModuleFlag[];
  /** Its system, from the options as given (checked: bad input names the option) and the tier asked for (else the engine's default). */
  system(options: ModuleEngineOptions, tier?: 'in-process' | 'process'): SystemUnderTest;
}

/** The options every module takes, whatever its engine: on the command line, and the fields they set. */
export const COMMON_MODULE_FLAGS: readonly ModuleFlag[] = [
  { flag: '--input', field: 'inputFile', value: 'FILE', expected: "a JSON file with the module's input" },
  { flag: '--effects-export', field: 'effectsExport', value: 'NAME', expected: 'the name of the export that reads the effects' },
];

/** The help line of a kind of module: `your own LangGraph graph: --langgraph <module.ts> --input <input.json> [--graph-export NAME] ...`. */
export function moduleUsage(m: ModuleEngine): string {
  const flags = [...m.flags, COMMON_MODULE_FLAGS[1]!].map((f) => `[${f.flag} ${f.value}]`);
  return `${m.kind}: ${m.cliOption} <module.ts> --input <input.json> ${flags.join(' ')}`;
}
