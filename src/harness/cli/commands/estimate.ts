// killpoint estimate [scenario.json ...] [--gap-ms X] [--round-trip-ms Y] [--kills-per-task K]
//                    [--monte-carlo N] [--seed S] [--json]
// How rarely a random kill finds the gap, per scenario and over the set: exact odds from each
// scenario's baseline run under the journal strategy, kills drawn uniformly from 5%..95% of the
// run. With --monte-carlo N, N seeded random kills per scenario check the exact odds (exit 1 if
// one lies outside its Wilson interval).

import { loadScenarioFile, lanternScenarios } from '../../../model/load.js';
import type { Scenario, Timings } from '../../../model/scenario.js';
import type { RunEvent } from '../../check/events.js';
import { runDurationMs } from '../../chapter/kill-time.js';
import { UsageError } from '../../usage-error.js';
import { decimalInt, decimalNumber } from '../options.js';
import {
  baselineEvents,
  CHAPTER_KILLS_PER_TASK,
  estimatedEvents,
  CHAPTER_WINDOW,
  estimateSet,
  waitingShare,
  type GapOverride,
  type IntervalShares,
  type RunEstimate,
  type SetEstimate,
} from '../../chapter/estimator.js';
import { estimateReportHtml } from '../../report/estimate-html.js';
import { writeReportFile } from '../../report/write.js';
import { checkExactAgainstSample, describeExactCheckFailure, monteCarloKills, zForSimultaneous, type ExactCheckFailure } from '../../chapter/monte-carlo.js';

/** The chapter's random kills: 176 of 210 landed while the agent waited on the model or a tool. */
const CHAPTER_WAITING = { kills: 176, of: 210 };

export interface EstimateArgs {
  files: string[];
  gap: GapOverride;
  killsPerTask: number;
  monteCarloDraws: number | null;
  seed: string;
  json: boolean;
  htmlPath: string | null;
}

function numberOption(name: string, value: string | undefined, whole: boolean): number {
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value`);
  const n = whole ? decimalInt(value) : decimalNumber(value);
  if (!Number.isFinite(n) || n < 0 || (whole && !Number.isInteger(n))) {
    throw new UsageError(`${name}: expected ${whole ? 'a whole number' : 'a number of ms'} >= 0, got "${value}"`);
  }
  return n;
}

export function parseEstimateArgs(args: readonly string[]): EstimateArgs {
  const parsed: EstimateArgs = { files: [], gap: {}, killsPerTask: CHAPTER_KILLS_PER_TASK, monteCarloDraws: null, seed: 'killpoint', json: false, htmlPath: null };
  const rest = [...args];
  for (let arg = rest.shift(); arg !== undefined; arg = rest.shift()) {
    switch (arg) {
      case '--json':
        parsed.json = true;
        break;
      case '--gap-ms':
        parsed.gap.gapMs = numberOption(arg, rest.shift(), false);
        break;
      case '--round-trip-ms':
        parsed.gap.roundTripMs = numberOption(arg, rest.shift(), false);
        break;
      case '--kills-per-task':
        parsed.killsPerTask = numberOption(arg, rest.shift(), true);
        break;
      case '--monte-carlo': {
        const draws = numberOption(arg, rest.shift(), true);
        if (draws < 1 || draws > 10_000_000) throw new UsageError(`--monte-carlo: expected 1..10000000 draws, got ${draws}`);
        parsed.monteCarloDraws = draws;
        break;
      }
      case '--html': {
        const path = rest.shift();
        if (path === undefined || path.trim() === '' || path.startsWith('-')) throw new UsageError(`--html: expected the file to write the report to, got ${path === undefined ? 'nothing' : `"${path}"`}`);
        parsed.htmlPath = path;
        break;
      }
      case '--seed': {
        const seed = rest.shift();
        if (seed === undefined || seed.startsWith('--')) throw new UsageError('--seed needs a value');
        parsed.seed = seed;
        break;
      }
      default:
        if (arg.startsWith('--')) {
          throw new UsageError(`unknown option ${arg} (options: --gap-ms X, --round-trip-ms Y, --kills-per-task K, --monte-carlo N, --seed S, --json, --html FILE)`);
        }
        parsed.files.push(arg);
    }
  }
  return parsed;
}

/** Infinity has no JSON; an estimate that can never hit says null. */
function finite(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

function runJson(id: string, source: string, e: RunEstimate, failures: ExactCheckFailure[] | null) {
  return {
    id,
    source,
    durationMs: e.durationMs,
    windowMs: [e.windowStartMs, e.windowEndMs],
    writes: e.writes,
    gaps: e.gaps,
    gapWidthsMs: e.gapWidthsMs,
    probability: e.probability,
    waitingProbability: waitingShare(e.probability),
    gapHitProbability: e.gapHitProbability,
    expectedKillsPerHit: finite(e.expectedKillsPerHit),
    killsFor95: finite(e.killsFor95),
    killsFor99: finite(e.killsFor99),
    ...(failures === null ? {} : { monteCarloFailures: failures.map(describeExactCheckFailure) }),
  };
}

function percent(p: number): string {
  return `${(p * 100).toFixed(2)}%`;
}

function oneIn(n: number): string {
  return Number.isFinite(n) ? `1 in ${Math.round(n).toLocaleString('en-US')}` : 'never';
}

function count(n: number): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : 'never';
}

function row(cells: string[]): string {
  const widths = [8, 10, 8, 8, 14, 10, 8, 15, 10, 10, 7];
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' ').trimEnd();
}

function shareCells(p: IntervalShares): string[] {
  return [percent(p.model), percent(p.tool), percent(p['write-before-commit']), `${(p.gap * 100).toPrecision(3)}%`, percent(p.other)];
}

function gapLabel(gap: GapOverride): string {
  const base = gap.gapMs === undefined ? "each run's own gap" : `${gap.gapMs} ms per gap`;
  return gap.roundTripMs ? `${base} + ${gap.roundTripMs} ms round trip` : base;
}

export function formatEstimate(set: SetEstimate, args: EstimateArgs, failures: Map<string, ExactCheckFailure[]> | null): string {
  const w = CHAPTER_WINDOW;
  const lines = [
    `random kills: uniform in ${w.fromFraction * 100}%..${w.toFraction * 100}% of each run; run = the scenario's baseline under the journal strategy; gap: ${gapLabel(args.gap)}`,
    '',
    row(['scenario', 'run ms', 'model', 'tool', 'write<commit', 'gap', 'other', 'gap hit', 'kills 95%', 'kills 99%', 'writes']),
  ];
  for (const { id, estimate: e } of set.runs) {
    lines.push(row([id, e.durationMs.toFixed(2), ...shareCells(e.probability), oneIn(e.expectedKillsPerHit), count(e.killsFor95), count(e.killsFor99), String(e.writes)]));
  }
  lines.push(row(['total', '', ...shareCells(set.probability), oneIn(set.expectedKillsPerHit), count(set.killsFor95), count(set.killsFor99), String(set.aimedKills)]));
  const chapterShare = CHAPTER_WAITING.kills / CHAPTER_WAITING.of;
  lines.push(
    '',
    `waiting on the model or a tool (a write's wait before its commit included): ${percent(waitingShare(set.probability))} of random kills (chapter: ${CHAPTER_WAITING.kills} of ${CHAPTER_WAITING.of} = ${percent(chapterShare)})`,
    `${set.killsPerTask} random kills per task, ${set.randomKills} in all: ${percent(set.noGapChance)} chance that none finds a gap; ${set.aimedKills} aimed ${set.aimedKills === 1 ? 'kill' : 'kills'} (one right after each write) ${set.aimedKills === 1 ? 'finds' : 'find'} every gap`,
  );
  if (failures !== null) {
    lines.push('');
    for (const { id } of set.runs) {
      const f = failures.get(id);
      if (f === undefined) throw new Error(`estimate: no monte carlo result for scenario ${id}`);
      lines.push(f.length === 0 ? `monte carlo ${id}: exact odds inside every Wilson interval` : `monte carlo ${id}: FAILED\n  ${f.map(describeExactCheckFailure).join('\n  ')}`);
    }
    const draws = args.monteCarloDraws;
    if (draws === null) throw new Error('estimate: monte carlo results without a number of draws');
    const replay = ['killpoint estimate', ...args.files, ...(args.gap.gapMs === undefined ? [] : ['--gap-ms', String(args.gap.gapMs)]),
      ...(args.gap.roundTripMs === undefined ? [] : ['--round-trip-ms', String(args.gap.roundTripMs)]), '--monte-carlo', String(draws), '--seed', args.seed];
    lines.push(`(${draws} draws per scenario, seed ${args.seed}, Wilson score intervals at 99% for all kinds of all scenarios together; replay: ${replay.join(' ')})`);
  }
  return lines.join('\n');
}

/** A scenario's timings for a message: "modelLatencyMs 0, chunkMs 0, toolWaitMs 0 and gapMs 0". */
function timingsWords(timings: Timings): string {
  const words = Object.entries(timings).map(([name, ms]) => `${name} ${ms}`);
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/**
 * A random kill time is drawn from the run's duration, so a run whose every event happens at 0 ms
 * has none to draw from: the scenario's timings are named, not the estimator's arithmetic. (Each
 * timing may be 0 on its own; only all of them together leave a run no time. --gap-ms cannot: the
 * journal's saves outside the gaps keep the scenario's own gapMs.)
 */
function mustTakeTime(scenario: Scenario, source: string, events: readonly RunEvent[], gap: GapOverride): void {
  if (runDurationMs(estimatedEvents(events, gap)) > 0) return;
  throw new UsageError(`${source}: timings: expected a run that takes time, but with ${timingsWords(scenario.timings)} every event of ${scenario.id} happens at 0 ms, so no kill time can be drawn`);
}

export function estimateCommand(argv: string[]): number {
  const args = parseEstimateArgs(argv);
  const scenarios: Array<{ scenario: Scenario; source: string }> = args.files.length > 0
    ? args.files.map((file) => ({ scenario: loadScenarioFile(file), source: file }))
    : lanternScenarios().map((scenario) => ({ scenario, source: `lantern/${scenario.id}` }));
  const runs = scenarios.map(({ scenario }) => ({ id: scenario.id, title: scenario.title, events: baselineEvents(scenario) }));
  for (const [i, { scenario, source }] of scenarios.entries()) mustTakeTime(scenario, source, runs[i]!.events, args.gap);
  let set: SetEstimate;
  try {
    set = estimateSet(runs, { gap: args.gap, killsPerTask: args.killsPerTask });
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
  let failures: Map<string, ExactCheckFailure[]> | null = null;
  if (args.monteCarloDraws !== null) {
    failures = new Map();
    // Six kinds in each of the scenarios are checked at once: 99% for all of them together.
    const z = zForSimultaneous(6 * runs.length);
    for (const [i, run] of runs.entries()) {
      const sample = monteCarloKills(run.events, { draws: args.monteCarloDraws, seed: `${args.seed}|${run.id}`, gap: args.gap, z });
      failures.set(run.id, checkExactAgainstSample(set.runs[i]!.estimate.probability, sample));
    }
  }
  const failed = failures !== null && [...failures.values()].some((f) => f.length > 0);
  if (args.htmlPath !== null) {
    const drawn = runs.map(({ id, title, events }) => ({ id, title, events: estimatedEvents(events, args.gap) }));
    writeReportFile(args.htmlPath, estimateReportHtml(set, drawn, gapLabel(args.gap)));
  }
  if (args.json) {
    const report = {
      window: CHAPTER_WINDOW,
      run: 'baseline under the journal strategy',
      gap: args.gap,
      killsPerTask: set.killsPerTask,
      scenarios: set.runs.map(({ id, estimate }, i) => runJson(id, scenarios[i]!.source, estimate, failures?.get(id) ?? null)),
      total: {
        probability: set.probability,
        waitingProbability: waitingShare(set.probability),
        chapterWaitingProbability: CHAPTER_WAITING.kills / CHAPTER_WAITING.of,
        gapHitProbability: set.gapHitProbability,
        expectedKillsPerHit: finite(set.expectedKillsPerHit),
        killsFor95: finite(set.killsFor95),
        killsFor99: finite(set.killsFor99),
        randomKills: set.randomKills,
        noGapChance: set.noGapChance,
        aimedKills: set.aimedKills,
      },
      ...(args.monteCarloDraws === null ? {} : { monteCarlo: { draws: args.monteCarloDraws, seed: args.seed, passed: !failed } }),
    };
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(formatEstimate(set, args, failures));
    if (args.htmlPath !== null) console.log(`HTML report: ${args.htmlPath}`);
  }
  return failed ? 1 : 0;
}
