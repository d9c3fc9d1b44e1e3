// The regression corpus: one JSON file per kept case, as concrete data (a seed and path stop
// replaying once an arbitrary changes; a scenario, a strategy and a schedule do not). Loading
// validates every field and names the file and the field when one is wrong. Replaying an entry
// runs its schedule and compares the verdict with the one expected.
//
// An entry:
//   note       one line: why this case is kept
//   scenario   a scenario file (relative to the project root) or a scenario object inline
//   engine     optional: the registered engine that runs it (default "scripted")
//   strategy   the engine's system: for the scripted engine, a strategy or broken variant
//   schedule   { kills?: [k1, k2, ...], killAt?: [identities], interleaving: [picks], killedAfter?: [event labels] }
//              kills by index, or killAt by identity (shop-commit[call_refund]: see
//              src/harness/check/kill-points.ts), or both, and then each index must be that event;
//              killedAfter, when given, pins what each kill point is ("refund call_refund: shop
//              commit"), so an entry whose events shifted fails loudly instead of testing nothing;
//              a kill past the end of its life makes the entry stale (bad input, naming the run's length)
//   property   the property or check the case belongs to
//   expected   { failed: [checks that fail, exactly], differences?: [lines, exactly],
//                property?: 'holds' | 'fails' (checked when `property` names one of PROPERTIES) }
//   origin     optional { seed, path, property } when fast-check found it

import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { loadScenarioFile, PROJECT_ROOT } from '../../model/load.js';
import { parseScenario, ScenarioError, type Scenario } from '../../model/scenario.js';
import { describeEvent } from '../check/event-kinds.js';
import { judgeCasePlan, resolveKillsPlan, type JudgedCase } from './explore.js';
import { runPlan, type DriveOptions, type Plan } from './plan.js';
import { killPointIdentity, parseKillPointSpec } from '../check/kill-points.js';
import { CHECK_NAMES, type CheckName } from '../check/checks.js';
import { PROPERTIES } from './properties.js';
import { differences } from '../check/verdict-lines.js';
import type { SystemUnderTest } from '../engine.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import { withSession } from '../session.js';
import { DEFAULT_ENGINE, engineNamed, engineNames } from '../registry.js';
import { UsageError } from '../usage-error.js';
import { firstUnlandedKill, type UnlandedKill } from './schedule-bounds.js';

/** The task of an agent behind the kill protocol (its own; nothing of it is ours to load). */

export const CORPUS_DIR = join(PROJECT_ROOT, 'corpus');

/** A corpus file names the file and the field that is wrong, like a scenario file. */
export class CorpusError extends ScenarioError {
  constructor(source: string, field: string, expected: string) {
    super(source, field, expected);
    this.name = 'CorpusError';
  }
}

/** Which recovery a life is, for a message: life 1 is "the first recovery". */
function recoveryWords(life: number): string {
  const ordinals = ['first', 'second', 'third'];
  return life <= ordinals.length ? `the ${ordinals[life - 1]} recovery` : `recovery ${life}`;
}

/**
 * An entry whose kill point lies past the end of its life: the run it was kept from was longer
 * (the scenario or the system changed since), so its replay would kill nothing and report what a
 * run never killed does. Bad input like any wrong field, and said as what it is: stale.
 */
export class StaleCorpusEntry extends CorpusError {
  constructor(file: string, field: string, unlanded: UnlandedKill) {
    const { life, kill, events } = unlanded;
    super(file, field, `a kill point from -1 to ${events - 1}`);
    const run = life === 0 ? 'the run' : `life ${life + 1} (${recoveryWords(life)})`;
    this.message = `${file}: ${field} is ${kill} but ${run} has ${events} event${events === 1 ? '' : 's'} (kill points -1 to ${events - 1}): the entry is stale`;
    this.name = 'StaleCorpusEntry';
  }
}

export interface CorpusEntry {
  /** The file it was loaded from. */
  file: string;
  note: string;
  scenario: Scenario;
  /** The scenario file, when the entry names one rather than holding it inline. */
  scenarioFile: string | null;
  /** The inline scenario as written, when there is one (so it can be written back). */
  scenarioInline: unknown;
  engine: string;
  strategy: string;
  system: SystemUnderTest;
  /** The schedule; its kills are null when the entry names them only by identity (resolved at replay). */
  schedule: { kills: number[] | null; interleaving: number[] };
  killAt: string[] | null;
  killedAfter: string[] | null;
  property: string;
  expected: { failed: CheckName[]; differences: string[] | null; property: 'holds' | 'fails' | null };
  origin: { seed: number; path: string; property: string } | null;
}

/** Looks like a corpus entry rather than a scenario (the check command accepts both). */
export function isCorpusEntry(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && 'expected' in raw && 'schedule' in raw;
}

function intList(file: string, value: unknown, field: string, min: number): number[] {
  if (!Array.isArray(value) || !value.every((v) => Number.isInteger(v) && (v as number) >= min)) {
    throw new CorpusError(file, field, `a list of integers >= ${min}`);
  }
  return value as number[];
}

function text(file: string, value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new CorpusError(file, field, 'a non-empty string');
  return value;
}

export function parseCorpusEntry(raw: unknown, file: string): CorpusEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CorpusError(file, '(top level)', 'an object');
  const o = raw as Record<string, unknown>;
  const allowed = ['note', 'scenario', 'engine', 'strategy', 'schedule', 'property', 'expected', 'origin'];
  for (const key of Object.keys(o)) if (!allowed.includes(key)) throw new CorpusError(file, key, `no such field (allowed: ${allowed.join(', ')})`);
  const note = text(file, o.note, 'note');
  let scenario: Scenario;
  let scenarioFile: string | null = null;
  // An agent behind the kill protocol, or a user's own graph, runs a task of its own: its engine's or its system's.
  const named = typeof o.engine === 'string' ? engineNamed(o.engine) : undefined;
  const ownTask = named?.ownTask ?? (named !== undefined && typeof o.strategy === 'string' ? named.system(o.strategy)?.ownTask : undefined);
  if (typeof o.scenario === 'string') {
    scenarioFile = o.scenario;
    scenario = loadScenarioFile(isAbsolute(o.scenario) ? o.scenario : join(PROJECT_ROOT, o.scenario));
  } else if (typeof o.scenario === 'object' && o.scenario !== null) {
    scenario = parseScenario(o.scenario, `${file}: scenario`);
  } else if (o.scenario === undefined && ownTask !== undefined) {
    scenario = ownTask;
  } else {
    throw new CorpusError(file, 'scenario', 'a scenario file path or an inline scenario object (none only for an agent that runs a task of its own: engine "external", or a graph of your own)');
  }
  const engineName = o.engine === undefined ? DEFAULT_ENGINE : o.engine;
  const engine = typeof engineName === 'string' ? engineNamed(engineName) : undefined;
  if (engine === undefined) throw new CorpusError(file, 'engine', `one of the registered engines: ${engineNames().join(', ')}`);
  const system = typeof o.strategy === 'string' ? engine.system(o.strategy) : undefined;
  if (system === undefined) throw new CorpusError(file, 'strategy', `one of the ${engine.name} engine's systems: ${engine.systemNames.join(', ')}`);
  if (typeof o.schedule !== 'object' || o.schedule === null) throw new CorpusError(file, 'schedule', 'an object { kills, interleaving }');
  const s = o.schedule as Record<string, unknown>;
  let killAt: string[] | null = null;
  if (s.killAt !== undefined) {
    if (!Array.isArray(s.killAt) || s.killAt.length === 0 || !s.killAt.every((x) => typeof x === 'string' && typeof parseKillPointSpec(x) === 'string')) {
      throw new CorpusError(file, 'schedule.killAt', 'a list of event identities, one per kill point (such as "shop-commit[call_refund]")');
    }
    killAt = s.killAt as string[];
  }
  const kills = s.kills === undefined && killAt !== null ? null : intList(file, s.kills, 'schedule.kills', -1);
  if (kills !== null && kills.length === 0) throw new CorpusError(file, 'schedule.kills', 'at least one kill point');
  if (kills !== null && killAt !== null && kills.length !== killAt.length) throw new CorpusError(file, 'schedule.killAt', `one identity per kill point (${kills.length})`);
  const killCount = kills?.length ?? killAt!.length;
  const interleaving = intList(file, s.interleaving ?? [], 'schedule.interleaving', 0);
  let killedAfter: string[] | null = null;
  if (s.killedAfter !== undefined) {
    if (!Array.isArray(s.killedAfter) || s.killedAfter.length !== killCount || !s.killedAfter.every((x) => typeof x === 'string')) {
      throw new CorpusError(file, 'schedule.killedAfter', 'one event label per kill point');
    }
    killedAfter = s.killedAfter as string[];
  }
  const property = text(file, o.property, 'property');
  if (typeof o.expected !== 'object' || o.expected === null) throw new CorpusError(file, 'expected', 'an object { failed, differences? }');
  const e = o.expected as Record<string, unknown>;
  if (!Array.isArray(e.failed) || !e.failed.every((c) => (CHECK_NAMES as readonly unknown[]).includes(c))) {
    throw new CorpusError(file, 'expected.failed', `a list of checks among ${CHECK_NAMES.join(', ')}`);
  }
  let expectedDifferences: string[] | null = null;
  if (e.differences !== undefined) {
    if (!Array.isArray(e.differences) || !e.differences.every((d) => typeof d === 'string')) throw new CorpusError(file, 'expected.differences', 'a list of strings');
    expectedDifferences = e.differences as string[];
  }
  let expectedProperty: 'holds' | 'fails' | null = null;
  if (e.property !== undefined) {
    if (e.property !== 'holds' && e.property !== 'fails') throw new CorpusError(file, 'expected.property', '"holds" or "fails"');
    if (!(property in PROPERTIES)) throw new CorpusError(file, 'property', `one of ${Object.keys(PROPERTIES).join(', ')} when expected.property is given`);
    expectedProperty = e.property;
  }
  let origin: CorpusEntry['origin'] = null;
  if (o.origin !== undefined) {
    const g = o.origin as Record<string, unknown>;
    if (typeof g !== 'object' || g === null || !Number.isInteger(g.seed)) throw new CorpusError(file, 'origin.seed', 'an integer');
    origin = { seed: g.seed as number, path: text(file, g.path, 'origin.path'), property: text(file, g.property, 'origin.property') };
  }
  return {
    file,
    note,
    scenario,
    scenarioFile,
    scenarioInline: scenarioFile === null ? o.scenario : null,
    engine: engine.name,
    strategy: system.name,
    system,
    schedule: { kills, interleaving },
    killAt,
    killedAfter,
    property,
    expected: { failed: CHECK_NAMES.filter((c) => (e.failed as string[]).includes(c)), differences: expectedDifferences, property: expectedProperty },
    origin,
  };
}

export function loadCorpusEntry(file: string): CorpusEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CorpusError(file, '(file)', `a readable JSON file (${(error as Error).message})`);
  }
  return parseCorpusEntry(raw, file);
}

/** Every entry of the corpus folder, in file-name order. */
export function loadCorpus(dir = CORPUS_DIR): CorpusEntry[] {
  return readdirSync(dir).filter((n) => n.endsWith('.json')).sort().map((n) => loadCorpusEntry(join(dir, n)));
}

export interface Replay {
  entry: CorpusEntry;
  judged: JudgedCase;
  /** Why the replay does not match the entry; empty when it does. */
  mismatches: string[];
}

/** Runs an entry's case: its kills by index, or found by identity life by life. */
function* replayPlan(entry: CorpusEntry): Plan<JudgedCase> {
  const { interleaving } = entry.schedule;
  const kills = entry.schedule.kills ?? (yield* resolveKillsPlan(entry.killAt!, interleaving));
  return yield* judgeCasePlan(entry.scenario, entry.system, { kills, interleaving });
}

/**
 * Replays an entry through the one drive, in a session of its own: at once when its system
 * answers at once, else a promise (an engine whose lives are processes). Await it: an entry names
 * its system by name.
 */
export function replayEntry(entry: CorpusEntry, drive?: DriveOptions): MaybePromise<Replay> {
  const judged = withSession(entry.system, entry.scenario, (session) => runPlan(replayPlan(entry), session, drive));
  return andThen(judged, (j) => {
    mustLandEveryEntryKill(entry, j);
    return compareReplay(entry, j);
  });
}

/** Every kill of an entry lands in its replay; one past the end of its life makes the entry stale. */
function mustLandEveryEntryKill(entry: CorpusEntry, judged: JudgedCase): void {
  const unlanded = firstUnlandedKill(judged.outcome, judged.schedule.kills);
  if (unlanded === null) return;
  const field = entry.schedule.kills === null ? 'schedule.killAt' : 'schedule.kills';
  throw new StaleCorpusEntry(entry.file, `${field}[${unlanded.life}]`, unlanded);
}

function compareReplay(entry: CorpusEntry, judged: JudgedCase): Replay {
  const mismatches: string[] = [];
  if (entry.killAt !== null) {
    for (const [life, identity] of entry.killAt.entries()) {
      const k = judged.schedule.kills[life]!;
      const got = killPointIdentity(judged.outcome.lives[life]?.events ?? [], k);
      if (got !== identity) mismatches.push(`schedule.killAt[${life}]: expected kill ${k} to be after "${identity}", it is after "${got}"`);
    }
  }
  if (entry.killedAfter !== null) {
    for (const [life, label] of entry.killedAfter.entries()) {
      const k = judged.schedule.kills[life]!;
      const events = judged.outcome.lives[life]?.events ?? [];
      const got = k === -1 ? '(before the first event)' : events[k] === undefined ? '(no such event)' : describeEvent(events[k]!);
      if (got !== label) mismatches.push(`schedule.killedAfter[${life}]: expected kill ${k} to be after "${label}", it is after "${got}"`);
    }
  }
  const failed = judged.failed.join(',');
  if (failed !== entry.expected.failed.join(',')) mismatches.push(`expected.failed: expected [${entry.expected.failed.join(', ')}], got [${judged.failed.join(', ')}]`);
  if (entry.expected.differences !== null) {
    const got = differences(judged.verdict);
    if (JSON.stringify(got) !== JSON.stringify(entry.expected.differences)) {
      mismatches.push(`expected.differences: expected ${JSON.stringify(entry.expected.differences)}, got ${JSON.stringify(got)}`);
    }
  }
  if (entry.expected.property !== null) {
    const problem = PROPERTIES[entry.property]!(judged);
    const got = problem === null ? 'holds' : 'fails';
    if (got !== entry.expected.property) mismatches.push(`expected.property: expected "${entry.property}" to ${entry.expected.property === 'holds' ? 'hold' : 'fail'}, it ${got === 'holds' ? 'holds' : `fails: ${problem}`}`);
  }
  return { entry, judged, mismatches };
}

/** What a saved entry says besides its verdict: why it is kept, and where its scenario is. */
export interface SaveOptions {
  name: string;
  note: string;
  property: string;
  scenarioFile?: string;
  scenarioInline?: unknown;
  origin?: CorpusEntry['origin'];
  dir?: string;
  /**
   * When a file of that name holds another entry: replace it (a script that rewrites its own
   * entries), or keep it and add a number to the new one's name (name-2.json, ...), so that two
   * cases of one name are both kept. The default replaces.
   */
  whenNameTaken?: 'replace' | 'add a number';
}

/** Most entries of one name a folder holds (name, name-2, ...) before saving one more is refused. */
const MAX_ENTRIES_OF_ONE_NAME = 1000;

/**
 * Writes a judged case as a corpus entry (the expected verdict is what it did now) and returns its
 * path from the project root. A folder or file that cannot be written is bad input naming the
 * entry, the folder and the errno.
 */
export function saveCorpusEntry(judged: JudgedCase, options: SaveOptions): string {
  const dir = options.dir ?? CORPUS_DIR;
  const text = `${JSON.stringify(entryJson(judged, options), null, 2)}\n`;
  try {
    makeFolder(dir);
    const file = options.whenNameTaken === 'add a number' ? writeUnderFreeName(dir, options.name, text) : writeReplacing(join(dir, `${options.name}.json`), text);
    return relative(PROJECT_ROOT, file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot keep the corpus entry ${options.name} in ${dir}: ${fsFailure(error)}`);
  }
}

/** The entry's JSON: the case as concrete data, with its kill points also by identity and by label. */
function entryJson(judged: JudgedCase, options: SaveOptions): Record<string, unknown> {
  const killedAfter = judged.schedule.kills.map((k, life) => {
    const e = judged.outcome.lives[life]?.events[k];
    return k === -1 ? '(before the first event)' : e ? describeEvent(e) : '(no such event)';
  });
  return {
    note: options.note,
    scenario: options.scenarioFile ?? options.scenarioInline,
    ...(judged.system.engine === DEFAULT_ENGINE ? {} : { engine: judged.system.engine }),
    strategy: judged.strategy,
    schedule: {
      kills: judged.schedule.kills,
      killAt: judged.schedule.kills.map((k, life) => killPointIdentity(judged.outcome.lives[life]?.events ?? [], k)),
      interleaving: judged.schedule.interleaving,
      killedAfter,
    },
    property: options.property,
    expected: {
      failed: judged.failed,
      differences: differences(judged.verdict),
      ...(options.property in PROPERTIES ? { property: PROPERTIES[options.property]!(judged) === null ? 'holds' : 'fails' } : {}),
    },
    ...(options.origin ? { origin: options.origin } : {}),
  };
}

function writeReplacing(file: string, text: string): string {
  writeFileSync(file, text);
  return file;
}

/**
 * Writes an entry under its name, or under the first of name-2, name-3, ... that is free, so that
 * two cases of one name (two scenario files with one id) are both kept. A file that holds this
 * very entry already is the answer: saving a case again adds no copy. Each name is taken by an
 * exclusive create, so two processes saving into one folder never write over each other.
 */
function writeUnderFreeName(dir: string, name: string, text: string): string {
  for (let n = 1; n <= MAX_ENTRIES_OF_ONE_NAME; n++) {
    const file = join(dir, n === 1 ? `${name}.json` : `${name}-${n}.json`);
    if (createExclusive(file, text) || readFileSync(file, 'utf8') === text) return file;
  }
  throw new UsageError(`cannot keep the corpus entry ${name} in ${dir}: it holds ${MAX_ENTRIES_OF_ONE_NAME} other entries of that name already`);
}

/** Creates a file holding this text; false when a file of that name exists already. */
function createExclusive(file: string, text: string): boolean {
  try {
    writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Makes a folder to keep corpus entries in and proves it writable, a probe file written and
 * removed, before any work is done: a folder that cannot be written is bad input found at once,
 * not a failure after a whole exploration. `option` names where the folder came from (--save).
 */
export function prepareCorpusFolder(dir: string, option: string): void {
  const probe = join(resolve(dir), `.killpoint-write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    makeFolder(dir);
    writeFileSync(probe, '', { flag: 'wx' });
    unlinkSync(probe);
  } catch (error) {
    throw new UsageError(`${option}: cannot keep corpus entries in ${dir}: ${fsFailure(error)}`);
  }
}

/**
 * Makes a folder and its missing parents, one mkdir each. Node's recursive mkdir retries for ever
 * where mkdir answers ENOENT though the parent exists (under /proc, which makes no folders): here
 * an ENOENT after the parent was made or found is final. A file in the folder's place is left for
 * the first write to name (ENOTDIR).
 */
function makeFolder(dir: string): void {
  const path = resolve(dir);
  try {
    mkdirUnlessThere(path);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(path) === path) throw error;
  }
  makeFolder(dirname(path));
  mkdirUnlessThere(path);
}

function mkdirUnlessThere(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Why a file system call failed, in a few words: "mkdir failed (ENOENT)". Anything else is rethrown. */
function fsFailure(error: unknown): string {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string') throw error;
  return `${syscall ?? 'a file system call'} failed (${code})`;
}
