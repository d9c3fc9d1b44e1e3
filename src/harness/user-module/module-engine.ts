// What every kind of user's module shares on the command line (its input, --effects-export,
// --resume) and its help line. What an engine declares to check a user's own module (ModuleEngine:
// its option, its killpointTests field, its flags, its waits, its system) is part of the seam,
// engine.ts; the command line, the API and the vitest helper read the declarations from the
// registry (registry.ts: moduleEngines) and name no engine.

import { SystemInputError, type ModuleEngine, type ModuleEngineOptions, type ModuleFlag, type SystemUnderTest } from '../engine.js';

/** The options every module takes, whatever its engine: on the command line, and the fields they set. */
export const COMMON_MODULE_FLAGS: readonly ModuleFlag[] = [
  { flag: '--input', field: 'inputFile', value: 'FILE', expected: "a JSON file with the module's input" },
  { flag: '--effects-export', field: 'effectsExport', value: 'NAME', expected: 'the name of the export that reads the effects' },
  { flag: '--resume', field: 'resumeFile', value: 'FILE', expected: 'a JSON file with a list of one value per wait of the run, in order' },
  { flag: '--redeliver', field: 'redeliver', value: '', boolean: true, expected: 'nothing: a turn whose delivery a kill may have cut is delivered again to the recovery' },
];

/** The options of the agent's HTTP traffic (traffic-target.ts), for the engines whose lives play it. */
export const TRAFFIC_FLAGS: readonly ModuleFlag[] = [
  { flag: '--cassette', field: 'cassette', value: 'FILE', expected: "the file of the agent's recorded HTTP traffic (recorded by a run never killed when missing)" },
  { flag: '--record', field: 'record', value: '', boolean: true, expected: 'nothing: it records the cassette again' },
  { flag: '--model-url', field: 'modelUrl', value: 'URL[,URL]', expected: 'URL prefixes of model endpoints beside the known APIs, comma-separated' },
  { flag: '--idempotency-header', field: 'idempotencyHeader', value: 'NAME[,NAME]', expected: 'headers that carry an idempotency key beside the usual ones, comma-separated' },
];

/** The help line of a kind of module: `your own LangGraph graph: --langgraph <module.ts> --input <input.json> [--graph-export NAME] ...`. */
export function moduleUsage(m: ModuleEngine): string {
  const flags = [...m.flags, ...COMMON_MODULE_FLAGS.slice(1).filter((f) => (f.flag !== '--resume' && f.flag !== '--redeliver') || m.waits !== undefined)].map((f) => (f.boolean ? `[${f.flag}]` : `[${f.flag} ${f.value}]`));
  return `${m.kind}: ${m.cliOption} <module.ts> --input <input.json> ${flags.join(' ')}`;
}

/**
 * The system of a user's module from the options as given, whatever asks for it (the command line,
 * the API, the vitest helper): an engine that cannot deliver turns at its run's waits refuses them
 * (bad input) rather than run a module that would never be given them.
 */
export function ownModuleSystem(m: ModuleEngine, options: ModuleEngineOptions, tier: 'in-process' | 'process' | undefined, every: readonly ModuleEngine[]): SystemUnderTest {
  if (m.waits === undefined && (options.resumeFile !== undefined || options.resume !== undefined)) {
    const taking = every.filter((e) => e.waits !== undefined).map((e) => `${e.cliOption} (${e.waits})`);
    throw new SystemInputError(`--resume: ${m.cliOption} cannot be given turns: killpoint does not see where ${m.kind.replace(/^your own /, 'a ')} waits (--resume is for ${taking.join(', ') || 'no engine yet'})`);
  }
  // Every engine that delivers turns at its waits delivers one again as its front end would (user-module/second-delivery.ts).
  if (redeliverAsked(options.redeliver) && options.resumeFile === undefined && options.resume === undefined) throw new SystemInputError('--redeliver: delivers a turn of --resume again; give the turns with --resume values.json');
  if (options.cassette !== undefined && !m.flags.some((f) => f.flag === '--cassette')) {
    const playing = every.filter((e) => e.flags.some((f) => f.flag === '--cassette')).map((e) => e.cliOption);
    throw new SystemInputError(`--cassette: killpoint does not play the traffic of ${m.kind.replace(/^your own /, 'a ')} yet (it does for ${playing.join(', ')})`);
  }
  return m.system(options, tier);
}

/** --redeliver as given: true from the command line, a boolean from code, a word from a name read back. */
export function redeliverAsked(given: unknown): boolean {
  if (given === undefined || given === false || given === 'false') return false;
  if (given === true || given === 'true') return true;
  throw new SystemInputError(`redeliver: expected true or false, got ${JSON.stringify(given)}`);
}
