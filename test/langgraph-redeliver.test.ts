// --redeliver: a web server behind a person's "Approve" button delivers again when it saw no
// acknowledgement. A turn is acknowledged once the invoke that carried it returns; a recovery whose
// predecessor handed a turn it never saw acknowledged is delivered it again, once, and the report
// says what that second delivery did. The keyed two-question graph of
// examples/refund-approval-langgraph (answers "approve" then "decline"), run through the command
// line's main, one kill schedule at a time; the exploration and its corpus entry with the full suite.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { killpointTests, type TestApi } from '../src/vitest/index.js';
import { runMain } from './helpers.js';
import { fullSuiteTest } from './suite.js';

const EXAMPLE = 'examples/refund-approval-langgraph';
const KEYED = `${EXAMPLE}/src/agent-keyed.ts`;
const TWO_LINES = `${EXAMPLE}/input-two.json`;
const ANSWERS = `${EXAMPLE}/resume-two.json`;
const check = (...rest: string[]) => runMain(['check', '--langgraph', KEYED, '--input', TWO_LINES, '--resume', ANSWERS, ...rest]);

const listeners = process.getMaxListeners();
beforeAll(() => void process.setMaxListeners(listeners + 10));
afterAll(() => void process.setMaxListeners(listeners));

interface CaseJson {
  ok: boolean;
  strategy: string;
  secondDeliveries: { wait: string; life: number; effect: string; answered: string | null }[];
}

describe('the second delivery, at each kind of kill point', () => {
  test('killed once ask#2 was saved and before the invoke that carried the approval returned: it answers ask#2, a later question; L2 is refunded: exit 1', async () => {
    const r = await check('--redeliver', '--schedule', 'writes-saved#7');
    const out = r.out.join('\n');
    expect(out).toMatch(/life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+redeliver ask#1: answering a later question \(ask#2\)/);
    expect(out).toContain('refund A-17/L2 committed, a write the baseline never made');
    expect(out).toContain("  second delivery (--redeliver):\n    ask#1's turn, delivered again to life 2: answering a later question (ask#2)\n");
    expect(out).toContain(`replay: npx killpoint check --langgraph ${KEYED} --input ${TWO_LINES} --resume ${ANSWERS} --redeliver --schedule 21`);
    expect(r.status).toBe(1);
  }, 60_000);

  test('killed with ask#2 next and not yet asked: LangGraph hands the Command to its interrupt(), which answers without waiting: exit 1, --json names it', async () => {
    const r = await check('--redeliver', '--schedule', 'checkpoint-saved[step 3]', '--json');
    const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
    expect(result!.secondDeliveries).toEqual([{ wait: 'ask#1', life: 2, effect: 'answering a later question', answered: 'ask#2' }]);
    expect(result!.ok).toBe(false);
    expect(r.status).toBe(1);
  }, 60_000);

  test('killed once the run ended, before the invoke returned: the approval of ask#2 is delivered again to a run that waits on nothing, and ignored: exit 0', async () => {
    const r = await check('--redeliver', '--schedule', 'checkpoint-saved[step 5]');
    const out = r.out.join('\n');
    // The Command's own write is saved, and nothing runs.
    expect(out).toMatch(/life 2 \(recovery 1\): 3 events, ran to its end\n\s+0\s+redeliver ask#2: turn delivered again\n\s+1\s+pending writes saved\n\s+2\s+redelivered ask#2: ignored/);
    expect(out).toContain("  second delivery (--redeliver):\n    ask#2's turn, delivered again to life 2: ignored\n");
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 60_000);

  test('killed where the run moved on from ask#1 and asks nothing in the step it runs next: ignored (the refund keyed, not done twice): exit 0', async () => {
    const r = await check('--redeliver', '--schedule', 'writes-saved#6', '--json');
    const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
    expect(result!.secondDeliveries).toEqual([{ wait: 'ask#1', life: 2, effect: 'ignored', answered: null }]);
    expect(r.status).toBe(0);
  }, 60_000);

  test('killed right after resume[ask#1], before LangGraph recorded it: the second delivery goes to ask#1 itself, the one delivery it records: exit 0', async () => {
    const r = await check('--redeliver', '--schedule', 'resume[ask#1]');
    const out = r.out.join('\n');
    expect(out).toMatch(/life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+redeliver ask#1: to the wait it was for \(its first delivery never recorded\)\n\s+1\s+resume ask#1: turn delivered/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 60_000);

  test('killed at interrupt[ask#2], the approval was acknowledged (invoke returned): nothing is delivered again', async () => {
    const r = await check('--redeliver', '--schedule', 'interrupt[ask#2]', '--json');
    const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
    expect(result!.secondDeliveries).toEqual([]);
    expect(r.status).toBe(0);
  }, 60_000);

  test('without --redeliver nothing changes: the same kill point holds, no second delivery', async () => {
    const r = await check('--schedule', 'writes-saved#7', '--json');
    const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
    expect(result).toMatchObject({ ok: true, secondDeliveries: [] });
    expect(result!.strategy).not.toContain('--redeliver');
    expect(r.status).toBe(0);
  }, 60_000);

  test('as processes killed with SIGKILL, the same second delivery: exit 1', async () => {
    const r = await check('--redeliver', '--tier', 'process', '--schedule', 'writes-saved#7', '--json');
    const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
    expect(result!.secondDeliveries).toEqual([{ wait: 'ask#1', life: 2, effect: 'answering a later question', answered: 'ask#2' }]);
    expect(r.status).toBe(1);
  }, 60_000);
});

describe('bad input: exit 2, one line', () => {
  const cases: [string, string[], RegExp][] = [
    ['--redeliver without --resume', ['--langgraph', KEYED, '--input', TWO_LINES, '--redeliver'], /^killpoint check: --redeliver: delivers a turn of --resume again; give the turns with --resume values\.json$/],
    ['an engine that cannot see its waits', ['--mastra', 'examples/support-agent-mastra/src/workflow.ts', '--input', 'examples/support-agent-mastra/input.json', '--resume', '[true]', '--redeliver'], /^killpoint check: --resume: --mastra cannot be given turns/],
  ];
  test.each(cases)('%s', async (_name, args, message) => {
    const r = await runMain(['check', ...args]);
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 60_000);
});

fullSuiteTest('every kill point with --redeliver: the approval answers ask#2 at two of them, exit 1; kept with --save, the entry names --redeliver and replays', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-redeliver-'));
  try {
    const r = await check('--redeliver', '--save', dir);
    const out = r.out.join('\n');
    expect(out).toContain('failures: lost (never sent) 2, different write 2, shop state differs 2');
    expect(out).toContain('kill schedule: 20 (checkpoint-saved[step 3])');
    expect(out).toContain("ask#1's turn, delivered again to life 2: answering a later question (ask#2)");
    expect(r.status).toBe(1);
    const entry = /kept as a corpus entry: (\S+\.json)/.exec(out)?.[1];
    expect(JSON.parse(readFileSync(entry!, 'utf8'))).toMatchObject({ strategy: `${KEYED} --input ${TWO_LINES} --resume ${ANSWERS} --redeliver` });
    const replay = await runMain(['check', entry!]);
    expect(replay.out.join('\n')).toContain('replays as expected');
    expect(replay.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);

test('killpointTests with redeliver: true, a test per kill point: the one at writes-saved#7 fails, naming the second delivery', async () => {
  const declared: { name: string; body: () => Promise<void> }[] = [];
  const api: TestApi = { describe: (_name, body) => body(), test: (name, body) => void declared.push({ name, body }) };
  await killpointTests('refund approval', { langgraph: KEYED, inputFile: TWO_LINES, resume: ['approve', 'decline'], redeliver: true, each: 'kill point' }, api);
  const at = declared.find((t) => t.name.includes('writes-saved#7'));
  expect(at, declared.map((t) => t.name).join('\n')).toBeDefined();
  await expect(at!.body()).rejects.toThrow(/answering a later question \(ask#2\)/);
}, 60_000);
