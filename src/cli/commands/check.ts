// killpoint check <scenario.json | corpus-entry.json ...> [--strategy S ...] [--kills 1|2]
//                 [--interleavings N] [--seed N] [--schedule k1,k2 [--interleaving p1,p2]] [--json]
// Explores every kill schedule of each scenario under each strategy (the bundled scenarios and the
// five strategies when none are named) and exits 0 when every check each strategy promises holds,
// 1 when one fails, 2 on bad input. --schedule replays one exact schedule and explains it. A corpus
// entry replays its case and compares the verdict with the one it expects.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { LANTERN_DIR, loadScenarioFile } from '../../model/load.js';
import { ScenarioError, type Scenario } from '../../model/scenario.js';
import { UsageError } from '../usage-error.js';
import { isCorpusEntry, loadCorpusEntry, replayEntry } from '../../search/corpus.js';
import { DEFAULT_EXPLORE_OPTIONS, explore, judgeCase } from '../../search/explore.js';
import { explorationJson, formatExploration, formatFailure, differences, type CaseSource } from '../report.js';
import { ALL_STRATEGY_NAMES, STRATEGY_NAMES, type AnyStrategyName } from '../../engines/scripted/strategies.js';

interface CheckArgs {
  files: string[];
  strategies: AnyStrategyName[];
  kills: 1 | 2;
  interleavingBound: number;
  seed: number;
  schedule: number[] | null;
  interleaving: number[];
  json: boolean;
}

function intList(value: string | undefined, option: string, min: number): number[] {
  if (value === undefined) throw new UsageError(`${option}: expected a comma-separated list of integers`);
  // Number('') is 0: an empty entry ('', '5,') must not become a 0.
  const list = value.split(',').map((v) => (v.trim() === '' ? NaN : Number(v)));
  if (list.some((n) => !Number.isInteger(n) || n < min)) throw new UsageError(`${option}: expected a comma-separated list of integers >= ${min}, got "${value}"`);
  return list;
}

function oneInt(value: string | undefined, option: string, min: number): number {
  const n = value === undefined || value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${option}: expected one integer >= ${min}, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return n;
}

export function parseCheckArgs(args: string[]): CheckArgs {
  const parsed: CheckArgs = { files: [], strategies: [], kills: 1, interleavingBound: DEFAULT_EXPLORE_OPTIONS.interleavingBound, seed: DEFAULT_EXPLORE_OPTIONS.seed, schedule: null, interleaving: [], json: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string | undefined => args[++i];
    switch (arg) {
      case '--strategy': {
        const name = value();
        if (name === undefined || !(ALL_STRATEGY_NAMES as readonly string[]).includes(name)) {
          throw new UsageError(`--strategy: expected one of ${ALL_STRATEGY_NAMES.join(', ')}, got ${name === undefined ? 'nothing' : `"${name}"`}`);
        }
        parsed.strategies.push(name as AnyStrategyName);
        break;
      }
      case '--kills': {
        const v = value();
        if (v !== '1' && v !== '2') throw new UsageError(`--kills: expected 1 or 2, got ${v === undefined ? 'nothing' : `"${v}"`}`);
        parsed.kills = Number(v) as 1 | 2;
        break;
      }
      case '--interleavings':
        parsed.interleavingBound = oneInt(value(), '--interleavings', 1);
        break;
      case '--seed':
        parsed.seed = oneInt(value(), '--seed', 0);
        break;
      case '--schedule':
        parsed.schedule = intList(value(), '--schedule', -1);
        break;
      case '--interleaving':
        parsed.interleaving = intList(value(), '--interleaving', 0);
        break;
      case '--json':
        parsed.json = true;
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option "${arg}" (options: --strategy, --kills, --interleavings, --seed, --schedule, --interleaving, --json)`);
        parsed.files.push(arg);
    }
  }
  if (parsed.schedule === null && parsed.interleaving.length > 0) throw new UsageError('--interleaving: only with --schedule');
  return parsed;
}

function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

export async function checkCommand(args: string[]): Promise<number> {
  const a = parseCheckArgs(args);
  const files = a.files.length > 0
    ? a.files
    : readdirSync(LANTERN_DIR).filter((n) => n.endsWith('.json')).sort().map((n) => displayPath(join(LANTERN_DIR, n)));
  const strategies = a.strategies.length > 0 ? a.strategies : [...STRATEGY_NAMES];
  const scenarios: { scenario: Scenario; source: CaseSource }[] = [];
  const corpusFiles: string[] = [];
  for (const file of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ScenarioError(file, '(file)', `a readable JSON file (${(error as Error).message})`);
    }
    if (isCorpusEntry(raw)) corpusFiles.push(file);
    else scenarios.push({ scenario: loadScenarioFile(file), source: { kind: 'scenario-file', path: file } });
  }
  if (a.schedule !== null && (scenarios.length !== 1 || corpusFiles.length > 0)) throw new UsageError('--schedule: name exactly one scenario file');

  let failing = 0;
  const json: unknown[] = [];
  const print = (text: string): void => {
    if (!a.json) console.log(text);
  };

  for (const file of corpusFiles) {
    const replay = replayEntry(loadCorpusEntry(file));
    const ok = replay.mismatches.length === 0;
    if (!ok) failing++;
    json.push({ corpusEntry: file, ok, mismatches: replay.mismatches, failed: replay.judged.failed, differences: differences(replay.judged.verdict) });
    print(`${file}: ${ok ? 'replays as expected' : 'DOES NOT MATCH'} (${replay.entry.note})`);
    for (const m of replay.mismatches) print(`  ${m}`);
    print(formatFailure({ judged: replay.judged, source: { kind: 'corpus-entry', path: file } }).split('\n').map((l) => `  ${l}`).join('\n'));
  }

  for (const { scenario, source } of scenarios) {
    for (const name of strategies) {
      if (a.schedule !== null) {
        const judged = judgeCase(scenario, name, { kills: a.schedule, interleaving: a.interleaving });
        if (judged.broken.length > 0) failing++;
        json.push({ scenario: scenario.id, strategy: name, schedule: judged.schedule, failed: judged.failed, broken: judged.broken, differences: differences(judged.verdict) });
        print(formatFailure({ judged, source }));
        continue;
      }
      const exploration = explore(scenario, name, { kills: a.kills, interleavingBound: a.interleavingBound, seed: a.seed });
      if (exploration.brokenPromises.length > 0) failing++;
      json.push(explorationJson(exploration, source));
      print(formatExploration(exploration, source));
    }
  }
  if (a.json) console.log(JSON.stringify(json, null, 2));
  else console.log(failing === 0 ? 'every promised check holds' : `${failing} case${failing === 1 ? '' : 's'} broke a promised check`);
  return failing === 0 ? 0 : 1;
}

