// Hangs found in seconds: an agent whose lock outlives its kill hangs in every recovery after its
// first event. Its verdict used to wait 120 s at each kill point (about 13 min for the fixture's
// 12, two at a time); now a life's limit follows the run never killed and the search stops after
// the earliest recovery that hangs, the later kill points counted as not explored.

import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkAgent } from '../src/harness/api/check-agent.js';
import { main } from '../src/harness/cli/main.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { captureConsole, killpointCommand } from './helpers.js';

const LOCK_AGENT = join(PROJECT_ROOT, 'test', 'fixtures', 'harness-faults', 'journal_lock_agent.py');
/** The fixture's kill points: -1 and its 11 events. */
const KILL_POINTS = 12;

const out = captureConsole();

/** What the command wrote on stderr (the hang is told there as it is found). */
function captureStderr(): { text(): string } {
  let written = '';
  beforeEach(() => {
    written = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    });
  });
  afterEach(() => vi.restoreAllMocks());
  return { text: () => written };
}

const err = captureStderr();

/** The explored and not explored schedules of the report, which together are every kill point. */
function countsOf(text: string): { explored: number; hung: number; notExplored: number } {
  const explored = /(\d+) schedules of up to 1 kill/.exec(text);
  const stopped = /stopped after the earliest recovery that hung: (\d+) runs? hung, (\d+) later kill points? not explored/.exec(text);
  return { explored: Number(explored?.[1]), hung: Number(stopped?.[1] ?? 0), notExplored: Number(stopped?.[2] ?? 0) };
}

describe('a Python agent whose lock outlives its kill', () => {
  // The time limit of this test is the point: with no option, the verdict comes within 30 s.
  it('gets its verdict at its earliest kill point within 30 s with no option, the later ones counted as not explored', async () => {
    const status = await main(['harness', '--', 'python3', LOCK_AGENT]);
    const text = out.text();
    expect(status).toBe(1);
    expect(text).toMatch(/kill schedule: 0 \(lock-taken\)/);
    expect(text).toMatch(/recovery failed: the recovery hung: it did not end within \d+ s after kill point 0 \(lock-taken\)/);
    expect(text).toContain(`replay: npx killpoint harness --schedule 0 -- python3 ${LOCK_AGENT}`);
    const counts = countsOf(text);
    expect(counts.hung).toBeGreaterThanOrEqual(1);
    expect(counts.notExplored).toBeGreaterThan(0);
    expect(counts.explored + counts.notExplored).toBe(KILL_POINTS);
    // Told on stderr as soon as it was in, with its replay.
    expect(err.text()).toMatch(/killpoint harness: kill schedule 0: the recovery hung: it did not end within \d+ s after kill point 0 \(lock-taken\); replay: npx killpoint harness --schedule 0 -- python3 \S+journal_lock_agent\.py; the search stops after it/);
  }, 30_000);

  it('--all runs every kill point, each hang at its limit (--life-timeout sets it)', async () => {
    // 3 s: the runs never killed must end within it too, a Python start on a busy machine among them.
    const status = await main(['harness', '--all', '--life-timeout', '3', '--', 'python3', LOCK_AGENT]);
    const text = out.text();
    expect(status).toBe(1);
    expect(text).not.toMatch(/stopped after the earliest recovery that hung/);
    expect(countsOf(text).explored).toBe(KILL_POINTS);
    // Every kill point past -1 (before the lock is taken) hangs, and is judged: its recovery failed.
    expect(text).toMatch(new RegExp(`invalid conversation ${KILL_POINTS - 1}\\b`));
    expect(text).toContain('recovery failed: the recovery hung: it did not end within 3 s after kill point 0 (lock-taken)');
  }, 120_000);
});

describe('checkAgent', () => {
  it('stops after the earliest hang too, at the limit lifeTimeoutMs sets; all: true judges every kill point', async () => {
    const stopped = await checkAgent({ agent: ['python3', LOCK_AGENT], lifeTimeoutMs: 1_000 });
    expect(stopped.minimal).toMatchObject({ kills: [0], killAt: ['lock-taken'], differences: expect.arrayContaining(['recovery failed: the recovery hung: it did not end within 1 s after kill point 0 (lock-taken)']) });
    const left = stopped.exploration.stoppedAtHang!;
    expect(left.hung).toBeGreaterThanOrEqual(1);
    expect(left.notExplored).toBeGreaterThan(0);
    expect(stopped.schedulesExplored + left.notExplored).toBe(KILL_POINTS);
    const all = await checkAgent({ agent: ['python3', LOCK_AGENT], lifeTimeoutMs: 1_000, all: true });
    expect(all.exploration.stoppedAtHang).toBeUndefined();
    expect(all.schedulesExplored).toBe(KILL_POINTS);
    expect(all.minimal?.kills).toEqual([0]);
  }, 60_000);
});

describe('killpoint harness -- python3 agent.py, as a user runs it', () => {
  it('reports that it hung at its earliest kill point within 60 s, the hang told on stderr first', async () => {
    const ran = await killpointCommand(['harness', '--', 'python3', 'test/fixtures/harness-faults/journal_lock_agent.py']);
    expect(ran.status).toBe(1);
    expect(ran.stdout).toMatch(/minimal counterexample:\n.*\n\s+kill schedule: 0 \(lock-taken\)/);
    expect(ran.stdout).toMatch(/stopped after the earliest recovery that hung/);
    expect(ran.stderr).toMatch(/kill schedule 0: the recovery hung: it did not end within \d+ s after kill point 0 \(lock-taken\); replay: npx killpoint harness --schedule 0 -- python3 test\/fixtures\/harness-faults\/journal_lock_agent\.py/);
    expect(ran.left).toEqual([]);
  }, 60_000);
});
