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
//              commit"), so an entry whose events shifted fails loudly instead of testing nothing
//   property   the property or check the case belongs to
//   expected   { failed: [checks that fail, exactly], differences?: [lines, exactly],
//                property?: 'holds' | 'fails' (checked when `property` names one of PROPERTIES) }
//   origin     optional { seed, path, property } when fast-check found it

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
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

/** The task of an agent behind the kill protocol (its own; nothing of it is ours to load). */

export const CORPUS_DIR = join(PROJECT_ROOT, 'corpus');

/** A corpus file names the file and the field that is wrong, like a scenario file. */
export class CorpusError extends ScenarioError {
  constructor(source: string, field: string, expected: string) {
    super(source, field, expected);
    this.name = 'CorpusError';
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
  return andThen(judged, (j) => compareReplay(entry, j));
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

/** Writes a judged case as a new corpus entry (the expected verdict is what it did now). */
export function saveCorpusEntry(judged: JudgedCase, options: { name: string; note: string; property: string; scenarioFile?: string; scenarioInline?: unknown; origin?: CorpusEntry['origin']; dir?: string }): string {
  const dir = options.dir ?? CORPUS_DIR;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${options.name}.json`);
  const killedAfter = judged.schedule.kills.map((k, life) => {
    const e = judged.outcome.lives[life]?.events[k];
    return k === -1 ? '(before the first event)' : e ? describeEvent(e) : '(no such event)';
  });
  const entry = {
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
  writeFileSync(file, `${JSON.stringify(entry, null, 2)}\n`);
  return relative(PROJECT_ROOT, file);
}
