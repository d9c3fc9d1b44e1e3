// A user's own Restate service, checked unchanged: the module defines the service and reads back
// its effects; killpoint serves it under a name of the run's own on a private restate-server,
// invokes its handler with the input, kills the service (its endpoint in killpoint's process, torn
// down) right after each ctx.run closure starts and returns and after each journal entry, and the
// server's retry is the recovery. Steps
// side by side run one at a time in the order the picks choose. Every schedule is a run from
// scratch (the invocation's journal cannot be copied), so the sample here is small: the whole
// search once, without keys, through the vitest helper.

import { afterAll, describe, expect, test } from 'vitest';
import { checkRestateSchedule } from '../src/harness/api/check-module.js';
import { killpointTests, type TestApi } from '../src/vitest/index.js';
import { leftByThisProcess, runMain } from './helpers.js';

const FIXTURES = 'test/fixtures/restate-modules';
const input = { orderId: 'O-7', email: 'dana@example.com' };

afterAll(() => {
  // Every session stopped its server and its lives, and removed its folders, the failing and the refused ones too.
  expect(leftByThisProcess()).toEqual([]);
});

describe('a refund service of your own', () => {
  test('without keys, one line in a vitest suite finds the earliest kill point that repeats a write: the refund closure returning before Restate journals it', async () => {
    const declared: { name: string; body: () => Promise<void> }[] = [];
    const api: TestApi = { describe: (_name, body) => body(), test: (name, body) => void declared.push({ name, body }) };
    killpointTests('refund service', { restate: `${FIXTURES}/unkeyed.ts`, input, interleavingBound: 1 }, api);
    expect(declared.map((t) => t.name)).toEqual(['unkeyed.ts: survives every kill point, up to 1 kill (with seed=1)']);
    // The test fails with the report killpoint check prints: the minimal kill point and its replay.
    const failure = await declared[0]!.body().then(() => 'passed', (error: Error) => error.message);
    expect(failure).toContain('kill schedule: 1 (run-return[step 0])');
    expect(failure).toContain('refund O-7 committed twice');
    expect(failure).toMatch(/replay: npx killpoint check --restate test\/fixtures\/restate-modules\/unkeyed\.ts --input '\{"orderId":"O-7","email":"dana@example\.com"\}' --schedule 1/);
  }, 300_000);

  test('with keys made of the invocation id and the step, the same kill is harmless, in either order of the two steps', async () => {
    for (const picks of [[0], [1]]) {
      // The refund's return is kill point 1 when it runs first, 4 when the email runs first.
      const check = await checkRestateSchedule({ module: `${FIXTURES}/keyed.ts`, input }, [picks[0] === 0 ? 1 : 4], picks);
      expect(check.failure.killAt).toEqual(['run-return[step 0]']);
      expect(check.report).toContain('<-- KILL');
      expect(check.ok).toBe(true);
      // The run never killed: each closure's start and return, its journal entry, then the output.
      expect(check.judged.baseline.lives[0]?.events.map((e) => e.kind)).toEqual(['run-start', 'run-return', 'step-recorded', 'run-start', 'run-return', 'step-recorded', 'invocation-done']);
    }
  }, 300_000);
});

// A saga: the hotel fails for good (TerminalError), the flight is cancelled, and the invocation
// ends in that error. The error is the run's outcome, in the answer's place (before, the run never
// killed "did not finish": exit 2); its compensation is an effect like any other.
describe('a booking saga that ends in a TerminalError after compensating', () => {
  const saga = (name: string, ...rest: string[]) => ['check', '--restate', `${FIXTURES}/${name}.ts`, '--input', '{"trip":"Lisbon"}', ...rest];

  test('keyed by the invocation id and the step: every kill point holds, each recovery ending in the same error', async () => {
    const r = await runMain(saga('saga-keyed'));
    expect(r.err.join('\n')).not.toContain('did not finish');
    expect(r.out.join('\n')).toContain('every promised check holds');
    expect(r.status).toBe(0);
  }, 300_000);

  test('unkeyed, a kill right after the compensation ran cancels the flight twice', async () => {
    const r = await runMain(saga('saga-unkeyed', '--schedule', 'run-return[step 2]'));
    const stdout = r.out.join('\n');
    expect(stdout).toContain('step 2 (cancel-flight): ctx.run returned   <-- KILL');
    expect(stdout).toContain('cancel flight Lisbon committed twice');
    expect(r.status).toBe(1);
  }, 300_000);
});

describe('the command line', () => {
  test('--restate with --input, exit 1 at the kill point that repeats the refund, with the line that replays it', async () => {
    const r = await runMain(['check', '--restate', `${FIXTURES}/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', 'run-return[step 0]']);
    const stdout = r.out.join('\n');
    // Named by the handler it invokes, as Restate's ingress names it, not by its module's file.
    expect(stdout).toMatch(/^Support\/refund \(the service of test\/fixtures\/restate-modules\/unkeyed\.ts\) under /);
    expect(stdout).toContain('step 0 (refund): ctx.run returned   <-- KILL');
    expect(stdout).toContain('refund O-7 committed twice');
    expect(stdout).toContain(`replay: npx killpoint check --restate ${FIXTURES}/unkeyed.ts --input ${FIXTURES}/input.json --schedule 1`);
    expect(r.status).toBe(1);
  }, 300_000);

  test('a module whose createService returns something other than a service is bad input, in one line', async () => {
    const r = await runMain(['check', '--restate', `${FIXTURES}/not-a-service.ts`, '--input', `${FIXTURES}/input.json`]);
    expect(r.status).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err.join('\n')).toMatch(/createService\(ctx\) returned object: expected the service restate\.service\(\{ name, handlers \}\) returned/);
  }, 300_000);

  test('a handler that the service does not have is bad input naming the handlers it has', async () => {
    const r = await runMain(['check', '--restate', `${FIXTURES}/keyed.ts`, '--input', `${FIXTURES}/input.json`, '--handler', 'refnd']);
    expect(r.status).toBe(2);
    expect(r.err.join('\n')).toMatch(/service Support has no handler refnd \(its handlers: refund\)/);
  }, 300_000);

  test('options of another kind of module are refused before anything runs', async () => {
    const r = await runMain(['check', '--restate', `${FIXTURES}/keyed.ts`, '--input', `${FIXTURES}/input.json`, '--workflow-export', 'x']);
    expect(r.status).toBe(2);
    expect(r.err.join('\n')).toMatch(/--workflow-export: only with --dbos/);
  });
});
