// What every kind of user's module shares on the command line (its input, --effects-export) and
// its help line. What an engine declares to check a user's own module (ModuleEngine: its option,
// its killpointTests field, its flags, its system) is part of the seam, engine.ts; the command
// line, the API and the vitest helper read the declarations from the registry
// (registry.ts: moduleEngines) and name no engine.

import type { ModuleEngine, ModuleFlag } from '../engine.js';

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
