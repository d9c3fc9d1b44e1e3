// A user's module and its input as the command line, the library and the vitest helper name them:
// checked before anything runs (bad input names what is wrong), and the task the module runs (its
// own, named after the module), which replay commands and corpus entries name by the same words.

import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Scenario } from '../../model/scenario.js';
import { SystemInputError, type SystemUnderTest, type UserModuleOptions } from '../engine.js';
import { moduleTrafficOf, type ModuleTraffic } from './traffic-target.js';
import { redeliverAsked } from './module-engine.js';

export interface UserModuleTarget {
  /** The module's absolute path. */
  module: string;
  /** How the user named it, for reports and replays. */
  moduleArg: string;
  input: unknown;
  /** The input as `--input` names it again in replays: its file, as given, or its JSON inline. */
  inputArg: string;
  /** The outside world's turns (--resume), one per wait in order, and how replays name them again (the file as given, or the JSON inline). */
  resume?: { values: unknown[]; arg: string; redeliver?: true };
  /** The agent's HTTP traffic, recorded once and replayed in every life (--cassette). */
  traffic?: ModuleTraffic;
}

/** `option`: the command-line option that names the module (for messages); `exports`: what it must export. */
export function userModuleTarget(options: UserModuleOptions, option: string, exports: string): UserModuleTarget {
  if (typeof options.module !== 'string' || options.module === '') throw new SystemInputError(`${option}: expected the path of the module that exports ${exports}`);
  const module = resolve(options.module);
  if (!existsSync(module)) throw new SystemInputError(`${options.module}: no such module`);
  const { input, inputArg } = inputOf(options);
  const turns = resumeOf(options);
  const resume = turns !== undefined && redeliverAsked(options.redeliver) ? { ...turns, redeliver: true as const } : turns;
  const traffic = moduleTrafficOf(options, options.module, input);
  return { module, moduleArg: options.module, input, inputArg, ...(resume === undefined ? {} : { resume }), ...(traffic === undefined ? {} : { traffic }) };
}

const RESUME_EXPECTED = 'a JSON list with one value per wait of the run, in order';

/** --resume's turns: a file, the JSON inline (a replay), or the list given from code. */
function resumeOf(options: UserModuleOptions): { values: unknown[]; arg: string } | undefined {
  const file = options.resumeFile;
  if (file === undefined) {
    if (options.resume === undefined) return undefined;
    if (!Array.isArray(options.resume)) throw new SystemInputError(`resume: expected ${RESUME_EXPECTED}, got ${typeof options.resume}`);
    let arg: string | undefined;
    try {
      arg = JSON.stringify(options.resume);
    } catch (error) {
      throw new SystemInputError(`resume: cannot be written as JSON (${(error as Error).message})`);
    }
    return { values: JSON.parse(arg) as unknown[], arg };
  }
  let text = file;
  if (!isInlineJson(file)) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new SystemInputError(`--resume ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  const parsed = parsedJson(text);
  if (parsed === undefined) throw new SystemInputError(`--resume ${file}: not JSON (expected ${RESUME_EXPECTED})`);
  if (!Array.isArray(parsed.value)) throw new SystemInputError(`--resume ${file}: expected ${RESUME_EXPECTED}, got ${parsed.value === null ? 'null' : typeof parsed.value === 'object' ? 'an object' : `a ${typeof parsed.value}`}`);
  return { values: parsed.value, arg: file };
}

function inputOf(options: UserModuleOptions): { input: unknown; inputArg: string } {
  const file = options.inputFile;
  if (file !== undefined && isInlineJson(file)) {
    try {
      return { input: JSON.parse(file), inputArg: file };
    } catch (error) {
      throw new SystemInputError(`--input: the JSON given inline is not JSON (${(error as Error).message})`);
    }
  }
  // A value written inline in a replay ("O-7", 42, true) where no file has that name.
  const written = file === undefined || existsSync(file) ? undefined : parsedJson(file);
  if (written !== undefined && file !== undefined) return { input: written.value, inputArg: file };
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new SystemInputError(`--input ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    try {
      return { input: JSON.parse(text), inputArg: file };
    } catch (error) {
      throw new SystemInputError(`--input ${file}: not JSON (${(error as Error).message})`);
    }
  }
  if (options.input === undefined) throw new SystemInputError("--input: expected a JSON file with the module's input (or, from code, `input`)");
  // Given as a value: a replay command carries it inline.
  let inline: string | undefined;
  try {
    inline = JSON.stringify(options.input);
  } catch (error) {
    throw new SystemInputError(`input: cannot be written as JSON (${(error as Error).message})`);
  }
  if (inline === undefined) throw new SystemInputError('input: expected a JSON value (an object, a list, a string, ...)');
  return { input: options.input, inputArg: inline };
}

/** `--input` takes a file, or the JSON itself: an object or a list always, any other JSON value where no file has its name. */
function isInlineJson(arg: string): boolean {
  return /^\s*[[{]/.test(arg);
}

function parsedJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** True when `path` names a module file that exists (a system name's first word, read back). */
export function isModulePath(path: string): boolean {
  return /\.[mc]?[jt]sx?$/.test(path) && existsSync(resolve(path));
}

/** The task a system runs of its own, named by what it runs where the system can tell (ownTaskName), else as ownTask is. */
export async function ownTaskOf(system: SystemUnderTest): Promise<Scenario> {
  const task = system.ownTask!;
  return system.ownTaskName === undefined ? task : { ...task, id: await system.ownTaskName() };
}

/** The task a user's module runs: its own (its input), named after the module. */
export function moduleTask(moduleArg: string, what: string): Scenario {
  return {
    id: basename(moduleArg).replace(/\.[mc]?[jt]sx?$/, ''),
    title: `${what} of ${moduleArg}`,
    customerMessage: '',
    shop: { customers: [], orders: [], refunds: [] },
    start: '',
    steps: new Map(),
    timings: { modelLatencyMs: 0, chunkMs: 0, toolWaitMs: 0, gapMs: 0 },
  };
}
