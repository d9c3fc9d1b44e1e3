// killpoint merge <shard.json ...> [--json]: joins what `killpoint check --shard i/n --json` wrote
// on each machine of a CI matrix into one report. Every shard of the split must be there exactly
// once (same n, same number of units), so a shard that did not run cannot pass unnoticed; plain
// `check --json` reports (arrays) are joined as they are. Exit 0 when every promised check held
// in every shard, 1 when one broke, 2 on bad input (a file that is not a check report, a shard
// missing or given twice).

import { readFileSync } from 'node:fs';
import { CHECK_LABELS, type CheckName } from '../../check/checks.js';
import { UsageError } from '../../usage-error.js';

interface ResultItem {
  ok?: unknown;
  scenario?: unknown;
  strategy?: unknown;
  engine?: unknown;
  corpusEntry?: unknown;
  schedulesExplored?: unknown;
  brokenPromises?: unknown;
  minimal?: { replay?: unknown } | null;
}

/** A plain `check --json` report: a list of results, from no split. */
interface PlainReport {
  file: string;
  shard: null;
  units: null;
  split: null;
  results: ResultItem[];
}

/** One shard of a split, from `check --shard i/n --json`. */
interface SplitShard {
  file: string;
  shard: { index: number; count: number };
  units: number;
  /** What the split is of (the units in order, kills, bound, seed), as check wrote it. */
  split: string;
  results: ResultItem[];
}

type ShardReport = PlainReport | SplitShard;

function bad(file: string, field: string, expected: string): never {
  throw new UsageError(`${file}: ${field}: expected ${expected}`);
}

function readReport(file: string): ShardReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    bad(file, '(file)', `a readable JSON file written by killpoint check --json (${(error as Error).message})`);
  }
  const items = Array.isArray(raw) ? raw : (raw as { results?: unknown })?.results;
  if (!Array.isArray(items)) bad(file, '(file)', 'the output of killpoint check --json: a list of results, or { shard, units, results } with --shard');
  items.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || typeof (item as ResultItem).ok !== 'boolean') bad(file, `results[${i}].ok`, 'true or false (a result of killpoint check --json)');
  });
  if (Array.isArray(raw)) return { file, shard: null, units: null, split: null, results: items as ResultItem[] };
  const r = raw as { shard?: { index?: unknown; count?: unknown }; units?: unknown; split?: unknown };
  const index = r.shard?.index;
  const count = r.shard?.count;
  if (!(Number.isInteger(count) && Number.isInteger(index) && (index as number) >= 1 && (index as number) <= (count as number))) bad(file, 'shard', '{ index, count } with 1 <= index <= count');
  if (!Number.isInteger(r.units) || (r.units as number) < 0) bad(file, 'units', 'the number of units of the whole split');
  if (typeof r.split !== 'object' || r.split === null) bad(file, 'split', 'what the split is of (written by killpoint check --shard)');
  return { file, shard: { index: index as number, count: count as number }, units: r.units as number, split: JSON.stringify(r.split), results: items as ResultItem[] };
}

function describe(item: ResultItem): string {
  if (typeof item.corpusEntry === 'string') return `${item.corpusEntry}: ${item.ok ? 'replays as expected' : 'DOES NOT MATCH'}`;
  const broken = Array.isArray(item.brokenPromises) && item.brokenPromises.length > 0 ? ` (${item.brokenPromises.map((c) => CHECK_LABELS[c as CheckName] ?? String(c)).join(', ')})` : '';
  const engine = typeof item.engine === 'string' && item.engine !== 'scripted' ? `${item.engine} ` : '';
  const explored = typeof item.schedulesExplored === 'number' ? `, ${item.schedulesExplored} schedules` : '';
  return `${String(item.scenario)} ${engine}${String(item.strategy)}: ${item.ok ? 'ok' : `FAIL${broken}`}${explored}`;
}

export function mergeCommand(args: string[]): number {
  let json = false;
  const files: string[] = [];
  for (const arg of args) {
    if (arg === '--json') json = true;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option "${arg}" (usage: killpoint merge <report.json ...> [--json])`);
    else files.push(arg);
  }
  if (files.length === 0) throw new UsageError('expected the JSON reports to join (killpoint check --shard i/n --json > shard-i.json on each machine)');
  const reports = files.map(readReport);
  const sharded = reports.filter((r): r is SplitShard => r.shard !== null);
  const [head] = sharded;
  if (head !== undefined) {
    const plain = reports.find((r) => r.shard === null);
    if (plain !== undefined) bad(plain.file, 'shard', 'a shard of the same split as the others (every file from check --shard, or none)');
    const { count } = head.shard;
    const units = head.units;
    for (const r of sharded) {
      if (r.shard.count !== count) bad(r.file, 'shard.count', `${count}, as in ${head.file}`);
      if (r.units !== units) bad(r.file, 'units', `${units}, as in ${head.file}: shards of one split run the same scenarios and systems`);
      if (r.split !== head.split) bad(r.file, 'split', `the split of ${head.file}: the same scenarios, systems, --kills, --interleavings and --seed`);
    }
    for (let i = 1; i <= count; i++) {
      const given = sharded.filter((r) => r.shard.index === i);
      if (given.length === 0) throw new UsageError(`shard ${i}/${count} is missing: a merge of ${count} shards needs every one of them`);
      if (given.length > 1) throw new UsageError(`shard ${i}/${count} is given twice: ${given.map((r) => r.file).join(', ')}`);
    }
    const results = sharded.reduce((n, r) => n + r.results.length, 0);
    if (results !== units) throw new UsageError(`the shards hold ${results} results, the split has ${units} units`);
    sharded.sort((a, b) => a.shard.index - b.shard.index);
  }
  const ordered = sharded.length > 0 ? sharded : reports;
  const results = ordered.flatMap((r) => r.results);
  const failing = results.filter((item) => item.ok === false);
  if (json) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    for (const item of results) {
      console.log(describe(item));
      if (item.ok === false && item.minimal && typeof item.minimal.replay === 'string') console.log(`  replay: ${item.minimal.replay}`);
    }
    const what = sharded.length > 0 ? `${sharded.length} shards` : `${reports.length} report${reports.length === 1 ? '' : 's'}`;
    console.log(`${what}, ${results.length} results: ${failing.length === 0 ? 'every promised check holds' : `${failing.length} broke a promised check`}`);
  }
  return failing.length === 0 ? 0 : 1;
}
