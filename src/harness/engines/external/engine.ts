// An agent in any language behind the kill protocol, as an engine: its system is the command that
// starts one life (`killpoint harness -- <command>` selects it). It runs a task of its own, not
// one of our scenarios, so it is judged against its own run never killed on what the protocol lets
// killpoint read: writes done twice, different or lost, the answer, delivered once, and whether a
// recovery stopped on an error.

import { brokenPromises, failedChecks, type CheckName } from '../../check/checks.js';
import { describeEvent } from '../../check/event-kinds.js';
import type { RunOutcome } from '../../check/outcome.js';
import type { WriteIdentity } from '../../check/records.js';
import { judge } from '../../check/verdict.js';
import type { Scenario } from '../../../model/scenario.js';
import { explorePlan } from '../../search/explore.js';
import { runPlan } from '../../search/plan.js';
import type { Engine, SystemUnderTest } from '../../engine.js';
import { EXTERNAL_TASK_ID, runExternal, type ExternalHarness } from './external.js';

/** What the protocol lets killpoint check, and so what an agent behind it is held to. */
export const EXTERNAL_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer', 'invalid-conversation', 'answer-twice'];

/** The task an external agent runs: its own, so the scenario holds nothing but a name. */
export function externalTask(harness: ExternalHarness): Scenario {
  return {
    id: EXTERNAL_TASK_ID,
    title: 'its own task',
    customerMessage: '',
    shop: { customers: [], orders: [], refunds: [] },
    start: '',
    steps: new Map(),
    timings: { modelLatencyMs: 0, chunkMs: 0, toolWaitMs: 0, gapMs: 0 },
  };
}

export function externalSystem(harness: ExternalHarness): SystemUnderTest {
  return {
    engine: 'external',
    name: harness.name,
    summary: `the agent started by ${harness.name}, through the kill protocol`,
    promised: EXTERNAL_PROMISES,
    killPoints: ['(the events the agent writes)'],
    selector: ['--', harness.name],
    inProcess: false,
    run: (_scenario, schedule) => runExternal(harness, schedule.kills),
  };
}

/**
 * Splits a command line into words as a POSIX shell would for the quoting killpoint writes (see
 * shellWord in the reporter): blanks separate words, '...' keeps everything as it is, and a
 * backslash outside quotes keeps the next character. A replay or a corpus entry names its harness
 * by that line, so it must come back as the same words, spaces in a path included.
 */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | null = null;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === "'") quoted = false;
      else word += c;
    } else if (c === "'") {
      quoted = true;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quoted) return undefined;
  if (word !== null) words.push(word);
  return words;
}

function harnessOf(commandLine: string): ExternalHarness | undefined {
  const [command, ...args] = shellWords(commandLine) ?? [];
  return command === undefined ? undefined : { name: commandLine, command, args };
}

export const externalEngine: Engine = {
  name: 'external',
  summary: 'an agent in any language, started once per life through the kill protocol (killpoint harness -- <command>)',
  systemNames: [],
  defaultSystems: [],
  system: (commandLine) => {
    const harness = harnessOf(commandLine);
    return harness === undefined ? undefined : externalSystem(harness);
  },
  ownTask: externalTask({ name: '', command: '', args: [] }),
};

export interface ExternalVerdict {
  harness: string;
  kills: number[];
  /** The event the (first) kill landed after, for reports. */
  killedAfterEvent: string | null;
  extraWrites: number;
  doneTwice: WriteIdentity[];
  differentWrites: WriteIdentity[];
  lostWrites: WriteIdentity[];
  answer: string | null;
  sameAnswer: boolean;
  answersDelivered: number;
  recoveryError: string | null;
  /** The checks it failed (all of them promised). */
  failed: CheckName[];
  /** Survived the kill: every check the protocol can make holds. */
  ok: boolean;
}

/** Judges an external run against its run never killed, with the same checks as every engine. */
export function judgeExternal(harness: ExternalHarness, outcome: RunOutcome, baseline: RunOutcome): ExternalVerdict {
  const scenario = externalTask(harness);
  const verdict = judge(scenario, outcome, baseline);
  const j = { scenario, outcome, verdict };
  const first = outcome.lives[0];
  const killedAfterEvent = first === undefined || first.killedAfter === null ? null : first.killedAfter < 0 ? '(before the first event)' : describeEvent(first.events[first.killedAfter]!);
  const broken = brokenPromises(EXTERNAL_PROMISES, j);
  return {
    harness: harness.name,
    kills: outcome.schedule.kills,
    killedAfterEvent,
    extraWrites: verdict.extraWrites,
    doneTwice: verdict.doneTwice,
    differentWrites: verdict.differentWrites,
    lostWrites: verdict.lostWrites,
    answer: verdict.answer,
    sameAnswer: verdict.sameAnswer,
    answersDelivered: verdict.answersDelivered,
    recoveryError: verdict.recoveryError,
    failed: failedChecks(j).filter((c) => EXTERNAL_PROMISES.includes(c)),
    ok: broken.length === 0,
  };
}

/**
 * Every single kill point of the harness, from a run never killed: -1 to its last event, each run
 * judged. The one explorer does it (src/harness/search: every single kill, runs `concurrency` at a
 * time); each run is handed back as it is judged, as the protocol's verdict.
 */
export async function checkEveryKillPoint(harness: ExternalHarness, concurrency = 2): Promise<ExternalVerdict[]> {
  const system = externalSystem(harness);
  const task = externalTask(harness);
  const verdicts: ExternalVerdict[] = [];
  // One life that breaks the protocol ends the check: no new run starts after it, and the error
  // reported is the lowest point's, whatever the timing (the drive's pool).
  await runPlan(explorePlan(task, system, { kills: 1, interleavingBound: 1, seed: 1 }, (run) => verdicts.push(judgeExternal(harness, run.outcome, run.baseline))), system, task, { concurrency });
  return verdicts;
}
