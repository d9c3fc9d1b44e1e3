// The gap, measured with real files: from the shop's SQLite commit of a refund to the journal's
// durable save of the conversation that records it (temp file written, then renamed over the
// journal), with and without fsync. Usage: tsx bench/gap.ts [--runs N] [--dir PATH]
//
// The shop is the project's own (Shop.create(rows, file)): better-sqlite3 on a file in WAL mode
// with synchronous=NORMAL, so a commit survives a process kill (not a power cut). The journal
// text is Dana's conversation up to the refund's result, serialized as the journal stores it.
// Each run makes a fresh 1-cent refund (so every run commits; same transaction as Dana's refund),
// then saves:
//   without fsync: write the temp file, rename it over the journal (survives a process kill);
//   with fsync:    write the temp file, fsync it, rename it, fsync the folder (survives a power cut).
// The clock starts when the shop's call returns (its commit done) and stops after the rename
// (and its fsync). The journal helper lives here so that it cannot drift into the real stores.

import { closeSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Conversation } from '../src/model/conversation.js';
import { lanternScenario } from '../src/model/load.js';
import { Shop } from '../src/model/shop.js';
import { baselineEvents, estimateRun } from '../src/harness/chapter/estimator.js';
import { serializeJournal } from '../src/harness/engines/scripted/journal-format.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';

const CHAPTER = { medianMs: 0.13, maxMs: 0.35, runs: 200 };
const WARM_UP_RUNS = 20;
const MIN_RUNS = 200;

class BenchUsage extends Error {}

function parseArgs(argv: string[]): { runs: number; dir: string } {
  let runs = 500;
  let dir = tmpdir();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = argv[i + 1];
    if (arg === '--runs' && value !== undefined) {
      runs = Number(value);
      i++;
    } else if (arg === '--dir' && value !== undefined) {
      dir = value;
      i++;
    } else {
      throw new BenchUsage(`unknown argument ${arg} (usage: tsx bench/gap.ts [--runs N] [--dir PATH])`);
    }
  }
  if (!(Number.isInteger(runs) && runs >= MIN_RUNS)) throw new BenchUsage(`--runs must be a whole number >= ${MIN_RUNS} (got ${runs})`);
  return { runs, dir };
}

/** A journal in a file, saved as the stores save it: temp file written, then renamed over it. */
class BenchFileJournal {
  private readonly tempPath: string;
  constructor(
    readonly path: string,
    private readonly dir: string,
    private readonly fsync: boolean,
  ) {
    this.tempPath = `${path}.tmp`;
  }

  save(text: string): void {
    const fd = openSync(this.tempPath, 'w');
    try {
      writeSync(fd, text);
      if (this.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(this.tempPath, this.path);
    if (this.fsync) {
      // The rename is a change to the folder: only the folder's fsync makes it durable.
      const dirFd = openSync(this.dir, 'r');
      try {
        fsyncSync(dirFd);
      } finally {
        closeSync(dirFd);
      }
    }
  }
}

interface Timing {
  gapMs: number[];
  commitMs: number[];
}

function measure(runs: number, baseDir: string, fsync: boolean): Timing {
  const scenario = lanternScenario('T01');
  const conversation = simulate(scenario, 'journal', { kills: [], interleaving: [] }).finalConversation;
  if (conversation === null) throw new Error('bench/gap.ts: the T01 baseline did not finish');
  // Dana's conversation up to the refund's tool call; the refund's result is added in each run.
  const refundAt = conversation.findIndex((m) => m.role === 'assistant' && m.toolCalls.some((c) => c.name === 'refund'));
  const asking = conversation[refundAt];
  const refundCall = asking?.role === 'assistant' ? asking.toolCalls.find((c) => c.name === 'refund') : undefined;
  if (refundCall === undefined) throw new Error('bench/gap.ts: no refund call in the T01 baseline');
  const prefix: Conversation = conversation.slice(0, refundAt + 1);

  const dir = mkdtempSync(join(baseDir, 'killpoint-gap-'));
  const shop = Shop.create(scenario.shop, join(dir, 'shop.sqlite'));
  const journal = new BenchFileJournal(join(dir, 'journal.json'), dir, fsync);
  const timing: Timing = { gapMs: [], commitMs: [] };
  try {
    for (let run = 0; run < WARM_UP_RUNS + runs; run++) {
      const args = { ...(refundCall.args as Record<string, unknown>), amountCents: 1 };
      const startNs = process.hrtime.bigint(); // real clock: measuring the commit
      const call = shop.call('refund', args, `bench:${fsync ? 'fsync' : 'plain'}:${run}`);
      const committedNs = process.hrtime.bigint(); // real clock: the gap starts at the commit
      if (!call.committed) throw new Error(`bench/gap.ts: run ${run}: the refund did not commit (${JSON.stringify(call.result)})`);
      const text = serializeJournal(scenario.id, [...prefix, { role: 'tool', toolCallId: refundCall.id, content: JSON.stringify(call.result) }]);
      journal.save(text);
      const savedNs = process.hrtime.bigint(); // real clock: the gap ends at the durable save
      if (run < WARM_UP_RUNS) continue;
      timing.commitMs.push(Number(committedNs - startNs) / 1e6);
      timing.gapMs.push(Number(savedNs - committedNs) / 1e6);
    }
  } finally {
    shop.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return timing;
}

/** Nearest-rank percentile of a sample. */
function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
}

function ms(value: number): string {
  return `${value.toFixed(3)} ms`.padStart(10);
}

function main(): void {
  const { runs, dir } = parseArgs(process.argv.slice(2));
  const plain = measure(runs, dir, false);
  const synced = measure(runs, dir, true);
  const line = (label: string, values: number[]) => `${label.padEnd(34)} ${ms(percentile(values, 0.5))} ${ms(percentile(values, 0.99))} ${ms(Math.max(...values))}`;
  console.log(`the gap with real files: shop commit (SQLite file, WAL, synchronous=NORMAL) to journal saved (temp file written, renamed)`);
  console.log(`${runs} runs each after ${WARM_UP_RUNS} warm-up runs, files in ${dir}; nearest-rank percentiles`);
  console.log('');
  console.log(`${''.padEnd(34)} ${'median'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)}`);
  console.log(line('gap, without fsync', plain.gapMs));
  console.log(line('gap, with fsync (file and folder)', synced.gapMs));
  console.log(`${'gap, chapter (laptop, 200 runs)'.padEnd(34)} ${ms(CHAPTER.medianMs)} ${'-'.padStart(10)} ${ms(CHAPTER.maxMs)}`);
  console.log(line('(shop commit itself, no fsync)', plain.commitMs));
  console.log('');
  // What the measured gap means for random kills, through the estimator (Dana's run, 5%..95%).
  const events = baselineEvents(lanternScenario('T01'));
  for (const [label, gapMs] of [
    ['chapter median', CHAPTER.medianMs],
    ['measured median, without fsync', percentile(plain.gapMs, 0.5)],
    ['measured median, with fsync', percentile(synced.gapMs, 0.5)],
  ] as const) {
    const e = estimateRun(events, { gap: { gapMs } });
    console.log(`T01 (Dana), gap ${gapMs.toFixed(3)} ms (${label}): a random kill hits it 1 in ${Math.round(e.expectedKillsPerHit).toLocaleString('en-US')}`);
  }
}

try {
  main();
} catch (error) {
  if (!(error instanceof BenchUsage)) throw error;
  console.error(`bench/gap.ts: ${error.message}`);
  process.exitCode = 2;
}
