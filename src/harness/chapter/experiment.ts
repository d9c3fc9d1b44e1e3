// The chapter's experiment: every Lantern task, killed at three chosen moments and at three random
// times, recovered by each of the five strategies, and judged against its baseline (14 x 5 x 6 = 420
// runs). The chosen moments are found in the baseline's own events, by what they mean, so they stay
// right when a scenario changes; the random ones come from one seed, so the table never moves.

import seedrandom from 'seedrandom';
import type { Scenario } from '../../model/scenario.js';
import { ScriptedModel } from '../../model/scripted-model.js';
import type { IntervalKind, RunEvent } from '../check/events.js';
import { killAtTime, runDurationMs } from './kill-time.js';
import { simulate } from '../engines/scripted/simulate.js';
import { noKills, type RunOutcome } from '../check/outcome.js';
import { STRATEGY_NAMES, type StrategyName } from '../engines/scripted/strategies.js';
import { judge, type Verdict } from '../check/verdict.js';

export const MOMENTS = ['first-reply', 'answer', 'after-write', 'random'] as const;
export type Moment = (typeof MOMENTS)[number];
export type ChosenMoment = Exclude<Moment, 'random'>;
export const CHOSEN_MOMENTS: readonly ChosenMoment[] = ['first-reply', 'answer', 'after-write'];

/** The committed seed of the random kills: change it and every random figure changes. */
export const EXPERIMENT_SEED = 'killpoint/lantern/random-kills/1';
export const RANDOM_KILLS_PER_CELL = 3;
/** Random kill times are uniform over this share of the baseline run, as in the chapter. */
export const RANDOM_WINDOW = { from: 0.05, to: 0.95 } as const;

/** Where a kill landed: what the process was doing in the interval the kill cut short. */
export type Landing = IntervalKind | 'after-end';

export interface TaskRun {
  moment: Moment;
  strategy: StrategyName;
  scenarioId: string;
  /** Which of the cell's random kills (0, 1, 2); 0 for the chosen moments. */
  draw: number;
  /** The kill point in the first life, or null when the task has no such moment (the run is the baseline). */
  killPoint: number | null;
  /** Random kills: the virtual time the kill was drawn at, and what it cut short. */
  killAtMs: number | null;
  landed: Landing | null;
  verdict: Verdict;
}

export interface LandingCounts {
  /** Waiting on the model, a read tool, or a write tool before its commit. */
  waiting: number;
  model: number;
  tool: number;
  writeBeforeCommit: number;
  gap: number;
  other: number;
}

export interface Row {
  moment: Moment;
  strategy: StrategyName;
  runs: number;
  /** Runs in which a kill happened (after-write: the tasks that commit a write). */
  killed: number;
  modelCallsRedone: number;
  extraWrites: number;
  doneTwice: number;
  refused: number;
  differentWrites: number;
  /** Killed runs whose delivered answer equals the baseline's, byte for byte. */
  sameAnswer: number;
  sentAgain: number;
  refusedBy: Record<string, number>;
  differentBy: Record<string, number>;
  /** Random kills only: where they landed. */
  landed?: LandingCounts;
}

export interface ExperimentResult {
  seed: string;
  rows: Row[];
  runs: TaskRun[];
  /** Each task's baseline under each strategy (the strip and the random times come from these). */
  baselines: Map<string, Map<StrategyName, RunOutcome>>;
}

/**
 * The kill point of a chosen moment in a baseline's events, or null when the run has no such moment.
 * - first-reply: halfway through streaming the first model reply;
 * - answer: halfway through streaming the final answer;
 * - after-write: right after the shop commits the run's first write (its result not yet back).
 */
export function chosenKillPoint(moment: ChosenMoment, events: readonly RunEvent[]): number | null {
  const halfway = (e: RunEvent) => e.kind === 'model-chunk' && e.chunk === Math.floor(e.chunks! / 2) - 1;
  switch (moment) {
    case 'first-reply':
      return events.find((e) => halfway(e) && e.modelCall === 0)?.index ?? null;
    case 'answer':
      return events.find((e) => halfway(e) && e.final === true)?.index ?? null;
    case 'after-write':
      return events.find((e) => e.kind === 'shop-commit')?.index ?? null;
  }
}

function landingCounts(runs: TaskRun[]): LandingCounts {
  const counts: LandingCounts = { waiting: 0, model: 0, tool: 0, writeBeforeCommit: 0, gap: 0, other: 0 };
  for (const run of runs) {
    switch (run.landed) {
      case 'model': counts.model++; counts.waiting++; break;
      case 'tool': counts.tool++; counts.waiting++; break;
      case 'write-before-commit': counts.writeBeforeCommit++; counts.waiting++; break;
      case 'gap': counts.gap++; break;
      default: counts.other++;
    }
  }
  return counts;
}

function tally(into: Record<string, number>, key: string, n = 1): void {
  into[key] = (into[key] ?? 0) + n;
}

export function summarize(moment: Moment, strategy: StrategyName, runs: TaskRun[]): Row {
  const row: Row = {
    moment, strategy, runs: runs.length, killed: 0, modelCallsRedone: 0, extraWrites: 0, doneTwice: 0, refused: 0,
    differentWrites: 0, sameAnswer: 0, sentAgain: 0, refusedBy: {}, differentBy: {},
  };
  for (const { killPoint, verdict: v } of runs) {
    if (killPoint === null) continue; // the baseline itself: nothing to count
    row.killed++;
    row.modelCallsRedone += v.modelCallsRedone;
    row.extraWrites += v.extraWrites;
    row.doneTwice += v.doneTwice.length;
    row.refused += v.refusedTotal;
    row.differentWrites += v.differentWrites.length;
    if (v.sameAnswer) row.sameAnswer++;
    row.sentAgain += v.sentAgain;
    for (const [reason, n] of Object.entries(v.refused)) tally(row.refusedBy, reason, n);
    for (const write of v.differentWrites) tally(row.differentBy, write.kind);
  }
  if (moment === 'random') row.landed = landingCounts(runs);
  return row;
}

/** Runs the whole experiment. Deterministic: the same scenarios and seed give the same result. */
export function runExperiment(scenarios: readonly Scenario[], seed: string = EXPERIMENT_SEED): ExperimentResult {
  const rng = seedrandom(seed);
  const runs: TaskRun[] = [];
  const baselines = new Map<string, Map<StrategyName, RunOutcome>>();
  for (const scenario of scenarios) {
    const model = new ScriptedModel(scenario);
    const perStrategy = new Map<StrategyName, RunOutcome>();
    baselines.set(scenario.id, perStrategy);
    for (const strategy of STRATEGY_NAMES) {
      const baseline = simulate(scenario, strategy, noKills(), model);
      perStrategy.set(strategy, baseline);
      const events = baseline.lives[0]!.events;
      const killed = (kill: number) => judge(scenario, simulate(scenario, strategy, { kills: [kill], interleaving: [] }, model), baseline);
      for (const moment of CHOSEN_MOMENTS) {
        const killPoint = chosenKillPoint(moment, events);
        const verdict = killPoint === null ? judge(scenario, baseline, baseline) : killed(killPoint);
        runs.push({ moment, strategy, scenarioId: scenario.id, draw: 0, killPoint, killAtMs: null, landed: null, verdict });
      }
      const durationMs = runDurationMs(events);
      for (let draw = 0; draw < RANDOM_KILLS_PER_CELL; draw++) {
        const killAtMs = (RANDOM_WINDOW.from + (RANDOM_WINDOW.to - RANDOM_WINDOW.from) * rng()) * durationMs;
        const { killPoint, interval } = killAtTime(events, killAtMs);
        runs.push({ moment: 'random', strategy, scenarioId: scenario.id, draw, killPoint, killAtMs, landed: interval, verdict: killed(killPoint) });
      }
    }
  }
  const rows: Row[] = [];
  for (const moment of MOMENTS) {
    for (const strategy of STRATEGY_NAMES) {
      rows.push(summarize(moment, strategy, runs.filter((r) => r.moment === moment && r.strategy === strategy)));
    }
  }
  return { seed, rows, runs, baselines };
}

/** The row of one moment and strategy. */
export function rowOf(result: ExperimentResult, moment: Moment, strategy: StrategyName): Row {
  const row = result.rows.find((r) => r.moment === moment && r.strategy === strategy);
  if (!row) throw new Error(`no row for ${moment} / ${strategy}`);
  return row;
}

/** The runs of one moment and strategy, in task order. */
export function runsOf(result: ExperimentResult, moment: Moment, strategy: StrategyName): TaskRun[] {
  return result.runs.filter((r) => r.moment === moment && r.strategy === strategy);
}
