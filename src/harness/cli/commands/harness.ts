// killpoint harness [--kills 1|2] [--schedule k1,k2] [--concurrency N] [--life-timeout S] [--all] [--json]
//   [--cassette FILE [--record] [--proxy NAME=URL] [--model-url URL] [--idempotency-header NAME]] -- <command> [args...]
// Kills an agent in any language at every kill point through the kill protocol (src/harness/process/protocol.ts),
// with --kills 2 also at every kill point of its recovery, restarts it, and judges each run against
// one never killed: the same explorer, checks, minimal counterexample and report as `check`.
// --schedule replays one schedule. Exit 1 when a check the protocol can make fails (a recovery
// that runs longer than --life-timeout seconds hung: a failure too; by default ten times the
// longest life of the run never killed plus 5 s), 2 when the harness breaks the protocol, its
// lives do not repeat the run never killed, or that run does not finish (it stopped, crashed or
// hung). The first recovery that hangs is told on stderr as soon as it is in, with its replay, and
// the search stops after it (the later kill points counted, not run) unless --all.

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { UsageError } from '../../usage-error.js';
import type { ExternalHarness } from '../../engines/external/external.js';
import { externalSystem, externalTask } from '../../engines/external/engine.js';
import { harnessTrafficOf, harnessTrafficWords } from '../../engines/external/traffic-options.js';
import { watchNothingWritten } from '../../engines/external/nothing-written.js';
import { explore, judgeCasePlan, mustFinish, resolveKillsPlan } from '../../search/explore.js';
import { runPlan } from '../../search/plan.js';
import { withSession } from '../../session.js';
import { decimalInt, decimalNumber, killDepth, killPointList } from '../options.js';
import { mustLandEveryKill } from '../../search/schedule-bounds.js';
import { differences } from '../../check/verdict-lines.js';
import { explorationJson, formatExploration, formatFailure, replayCommand, type CaseSource } from '../../report/text.js';
import type { RunOutcome } from '../../check/outcome.js';
import type { SystemUnderTest } from '../../engine.js';
import { compareSchedules } from '../../search/search-common.js';
import { shellWord } from '../../shell-words.js';
import { startProgress, type Progress } from '../progress.js';
import { prepareCorpusFolder, saveCorpusEntry } from '../../search/corpus.js';
import { relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../../model/load.js';

/**
 * `--schedule -1` (a kill before the first event, as a replay line prints it and check reads it)
 * joined into `--schedule=-1`: parseArgs would take "-1" for an option of its own.
 */
function negativeScheduleJoined(args: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') return [...joined, ...args.slice(i)];
    if (args[i] === '--schedule' && /^-\d/.test(args[i + 1] ?? '')) joined.push(`--schedule=${args[++i]}`);
    else joined.push(args[i]!);
  }
  return joined;
}

/**
 * Tells of a run whose recovery hung as soon as it is in, with the command that replays it: each
 * one earlier than those told before (the runs under way when the first came in may hang too).
 */
export function hangTeller(source: CaseSource, system: SystemUnderTest, write: (line: string) => void): (outcome: RunOutcome, all: boolean) => void {
  let earliest: number[] | null = null;
  return (outcome, all) => {
    const kills = outcome.schedule.kills;
    if (earliest !== null && compareSchedules({ kills, order: 0 }, { kills: earliest, order: 0 }) >= 0) return;
    const first = earliest === null;
    earliest = kills;
    const hung = outcome.lives.find((life) => life.hung === true)!;
    const then = !first ? '' : all ? '; --all: every later kill point is run too, each hang at its time limit' : '; the search stops after it: the later kill points are counted, not run (--all runs every one)';
    write(`killpoint harness: kill schedule ${kills.join(',')}: ${hung.error}; replay: ${replayCommand(source, { system, schedule: outcome.schedule })}${then}`);
  };
}

export async function harnessCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: negativeScheduleJoined(args), allowPositionals: true, options: { kills: { type: 'string' }, schedule: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'boolean' }, 'life-timeout': { type: 'string' }, save: { type: 'string' }, all: { type: 'boolean' }, cassette: { type: 'string' }, record: { type: 'boolean' }, 'model-url': { type: 'string', multiple: true }, 'idempotency-header': { type: 'string', multiple: true }, proxy: { type: 'string', multiple: true } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.save !== undefined && (parsed.values.save.trim() === '' || parsed.values.save.startsWith('-'))) throw new UsageError(`--save: expected the folder to keep corpus entries in, got "${parsed.values.save}"`);
  // A folder that cannot be written is bad input found before the exploration, not after it.
  if (parsed.values.save !== undefined) prepareCorpusFolder(parsed.values.save, '--save');
  const [command, ...commandArgs] = parsed.positionals;
  if (command === undefined) throw new UsageError('expected the harness command after --, e.g. killpoint harness -- python3 agents/python/refund_agent.py');
  const concurrency = parsed.values.concurrency === undefined ? availableParallelism() : decimalInt(parsed.values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency: expected a whole number >= 1, got "${parsed.values.concurrency}"`);
  const kills = parsed.values.kills === undefined ? 1 : killDepth(parsed.values.kills, '--kills');
  const schedule = parsed.values.schedule === undefined ? null : killPointList(parsed.values.schedule, '--schedule');
  // Without --life-timeout the limit follows the run never killed (life-time-limit.ts).
  const timeoutS = parsed.values['life-timeout'] === undefined ? undefined : decimalNumber(parsed.values['life-timeout']);
  if (timeoutS !== undefined && !(Number.isFinite(timeoutS) && timeoutS > 0)) throw new UsageError(`--life-timeout: expected seconds > 0, got "${parsed.values['life-timeout']}"`);
  const words = [command, ...commandArgs];
  const name = words.map(shellWord).join(' ');
  const v = parsed.values;
  const traffic = harnessTrafficOf({ ...(v.cassette === undefined ? {} : { cassette: v.cassette }), ...(v.record === undefined ? {} : { record: v.record }), ...(v['model-url'] === undefined ? {} : { modelUrl: v['model-url'] }), ...(v['idempotency-header'] === undefined ? {} : { idempotencyHeader: v['idempotency-header'] }), ...(v.proxy === undefined ? {} : { proxy: v.proxy }) }, name);
  // A corpus entry keeps the command and the schedule, not the cassette its replay would need.
  if (traffic !== undefined && v.save !== undefined) throw new UsageError('--save: not with --cassette (a corpus entry does not keep the cassette and its options yet); replay the minimal case with the command the report prints');
  const harness: ExternalHarness = { name, command, args: commandArgs, ...(timeoutS === undefined ? {} : { lifeTimeoutMs: timeoutS * 1000 }), ...(traffic === undefined ? {} : { traffic }) };
  const system = externalSystem(harness);
  const task = externalTask(harness);
  const source: CaseSource = { kind: 'harness', command: harness.name, options: harnessTrafficWords(traffic) };
  // A pass over a run never killed that wrote nothing rests on nothing: its note (nothing-written.ts).
  const nothingWritten = watchNothingWritten(system);
  const print = (text: string): void => {
    if (!parsed.values.json) console.log(text);
  };

  if (schedule !== null) {
    // One session for both: the kills found by identity, then the case judged.
    const { resolved, judged } = await withSession(system, task, async (session) => {
      const kills = await runPlan(resolveKillsPlan(schedule, []), session);
      return { resolved: kills, judged: await runPlan(judgeCasePlan(task, system, { kills, interleaving: [] }), session) };
    });
    // Judged against a run that finished, at kill points that landed: else it proves nothing.
    mustFinish(judged.baseline, system);
    mustLandEveryKill(judged.outcome, resolved, '--schedule');
    if (parsed.values.json) console.log(JSON.stringify({ harness: harness.name, schedule: judged.schedule, failed: judged.failed, broken: judged.broken, differences: differences(judged.verdict) }, null, 2));
    print(formatFailure({ judged, source }));
    return judged.broken.length > 0 ? 1 : 0;
  }

  // Each life is a process: a progress line for each batch of runs, at a terminal only.
  let shown: Progress | null = null;
  const progress = (batch: number): Progress => (shown = startProgress('killpoint harness: runs', batch, { enabled: !parsed.values.json }));
  const onHang = hangTeller(source, system, (line) => {
    shown?.clear();
    process.stderr.write(`${line}\n`);
  });
  const all = parsed.values.all === true;
  const exploration = await explore(task, system, { kills, interleavingBound: 1, seed: 1, everyKillPointAfterHang: all }, { concurrency, progress, onHang: (outcome) => onHang(outcome, all) });
  if (parsed.values.json) console.log(JSON.stringify(explorationJson(exploration, source), null, 2));
  print(formatExploration(exploration, source));
  const note = exploration.brokenPromises.length === 0 ? nothingWritten() : null;
  if (note !== null) print(note);
  if (parsed.values.save !== undefined && exploration.minimal !== null) {
    // The minimal case as a corpus entry of the external engine: `killpoint check <entry>` replays
    // it (from the folder the harness command is relative to) and compares the verdict.
    const name = `harness-${harness.name}`.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase().slice(0, 80);
    const saved = saveCorpusEntry(exploration.minimal, { name, note: `found by killpoint harness: the earliest schedule that breaks ${exploration.minimal.broken.join(', ')}`, property: 'promised checks', dir: resolve(parsed.values.save), whenNameTaken: 'add a number' });
    const shown = relative(process.cwd(), resolve(PROJECT_ROOT, saved));
    const path = shown.startsWith('..') ? resolve(PROJECT_ROOT, saved) : shown;
    print(`  kept as a corpus entry: ${path} (replay: npx killpoint check ${path})`);
  }
  return exploration.brokenPromises.length > 0 ? 1 : 0;
}
