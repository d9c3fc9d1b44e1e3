// A user's own Vercel workflow, checked unchanged: the module holds the "use workflow" function and
// its steps (the ledger's helpers in a "use step" file beside it), the Workflow SDK's builder
// compiles it once per killpoint process, each life runs it in a local world of the run's own and
// is killed right after a world event or a step's return (before its step_completed is written:
// the gap). Its lives run on threads of killpoint's process (test/vercel-in-process.test.ts compares
// them with SIGKILL); the sample here is chosen kill points, not the whole search (`killpoint check
// --vercel-workflow` explores every one).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkVercelWorkflowSchedule } from '../src/harness/api/check-module.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { BUNDLE_VARIABLE } from '../src/harness/user-module/bundle.js';
import { leftByThisProcess, runMain } from './helpers.js';

const FIXTURES = 'test/fixtures/vercel-modules';
const input = { orderId: 'O-7', email: 'dana@example.com' };
/** The refund step's return, with the refund run first: run created, invoked, both steps created, the refund started, returned. */
const REFUND_RETURNED = 5;

afterAll(() => {
  // No life still running, no run's folder left, the failing and the refused checks' too.
  expect(leftByThisProcess()).toEqual([]);
});

describe('a refund workflow of your own', () => {
  test('without keys, a kill right after the refund step returned, before its step_completed is written, makes the recovery refund again', async () => {
    const check = await checkVercelWorkflowSchedule({ module: `${FIXTURES}/workflows/unkeyed.ts`, input }, [REFUND_RETURNED]);
    expect(check.failure.killAt).toEqual(['step-returned[step 0]']);
    expect(check.ok).toBe(false);
    expect(check.failure.differences[0]).toMatch(/^refund O-7 committed twice/);
    // The run never killed: the world's events, and each step's return before its record.
    expect(check.judged.baseline.lives[0]?.events.map((e) => e.kind)).toEqual(['run-created', 'run-started', 'step-created', 'step-created', 'step-started', 'step-returned', 'step-recorded', 'run-started', 'step-started', 'step-returned', 'step-recorded', 'run-started', 'run-completed']);
    expect(check.judged.baseline.delivered).toEqual(['refunded and emailed']);
  }, 300_000);

  test('with keys made of the run id and the step id, the same kill is harmless', async () => {
    const check = await checkVercelWorkflowSchedule({ module: `${FIXTURES}/workflows/keyed.ts`, input }, [REFUND_RETURNED]);
    expect(check.failure.killAt).toEqual(['step-returned[step 0]']);
    expect(check.report).toContain('<-- KILL');
    expect(check.ok).toBe(true);
  }, 300_000);
});

// A saga: the hotel step fails for good (FatalError), the flight is cancelled, and the run ends in
// run_failed. That error is the run's outcome, in the answer's place (before, the run never killed
// "did not finish": exit 2); the compensation is an effect like any other.
test('a booking saga that throws after compensating: keyed, every kill point holds; unkeyed, a kill after the cancel returned cancels twice', async () => {
  const saga = (keyed: boolean, ...rest: string[]) => ['check', '--vercel-workflow', `${FIXTURES}/workflows/booking-saga.ts`, '--input', JSON.stringify({ trip: 'Lisbon', keyed }), ...rest];
  const keyed = await runMain(saga(true));
  expect(keyed.err.join('\n')).not.toContain('did not finish');
  expect(keyed.out.join('\n')).toContain('every promised check holds');
  expect(keyed.status).toBe(0);
  const unkeyed = await runMain(saga(false, '--schedule', 'step-returned[step 2]'));
  expect(unkeyed.out.join('\n')).toContain('cancel flight Lisbon committed twice');
  expect(unkeyed.status).toBe(1);
}, 300_000);

// Randomness in a life is seeded by the life's number (user-module/seeded-randomness.ts): a user's
// id made with crypto.randomUUID() is the same in both runs never killed (before: they differed,
// exit 2), while a key made at random in a step is still new after a kill, so the check still fails.
test('a sign-up that makes its user id with randomUUID: its runs never killed agree; keyed by run and step it holds, keyed at random its writes are done twice', async () => {
  const signUp = (input: object, ...rest: string[]) => ['check', '--vercel-workflow', `${FIXTURES}/workflows/sign-up.ts`, '--input', JSON.stringify({ email: 'ana@example.com', ...input }), ...rest];
  const withId = await runMain(signUp({ keys: 'stable', answerWithId: true }, '--schedule', '-1'));
  expect(withId.err.join('\n')).not.toContain('two runs without a kill differ');
  // A recovery from the start is another life: a new id, as after a real restart.
  expect(withId.out.join('\n')).toMatch(/answer: "user [0-9a-f-]{36}"; baseline: "user [0-9a-f-]{36}"/);
  const stable = await runMain(signUp({ keys: 'stable' }));
  expect(stable.status, stable.err.join('\n')).toBe(0);
  const random = await runMain(signUp({ keys: 'random' }));
  expect(random.out.join('\n')).toContain('create-user ana@example.com committed twice');
  expect(random.status).toBe(1);
}, 300_000);

// A sleep() and a step's retry delay end on killpoint's clock (life-clock.ts, queue-delays.ts): once
// nothing else of the run is in flight, the clock moves to the delay's end and the run goes on at
// once. An hour's sleep and a retry an hour later in every life would outlast this test's timeout
// many times over, so its finishing is what says they did not wait in real time (before, the sign-up
// with sleep("5s") took 39.6 s for its 13 lives, 9.3 s after; the time is printed, not asserted). A recovery
// whose clock started at the machine's time, behind its predecessor's hour, ended in error after a
// kill at woke[sleep 0] (its replay diverged): the keyed check fails then, as it does without the
// clock (its first life is killed at the life's time limit).
test('a sign-up that sleeps an hour and retries its welcome an hour later: keyed, every kill point holds, the sleep and the retry ending on killpoint\'s clock; keyed at random, done twice', async () => {
  const signUp = (input: object, ...rest: string[]) => ['check', '--vercel-workflow', `${FIXTURES}/workflows/sign-up.ts`, '--input', JSON.stringify({ email: 'ana@example.com', sleep: '1h', ...input }), ...rest];
  const startedMs = performance.now();
  const stable = await runMain(signUp({ keys: 'stable', retryAfter: '1h' }));
  console.log(`sign-up with sleep("1h") and a retry 1 h later, keyed, every kill point: ${Math.round(performance.now() - startedMs)} ms`);
  expect(stable.status, stable.err.join('\n')).toBe(0);
  // The sleep's two kill points were among those explored: the run sleeps, and wakes.
  const sleepy = await runMain(signUp({ keys: 'stable' }, '--schedule', 'woke[sleep 0]'));
  expect(sleepy.out.join('\n')).toMatch(/sleep 0: the run sleeps \(its wake time recorded\)\n.*\n.*sleep 0: over   <-- KILL/);
  const random = await runMain(signUp({ keys: 'random' }, '--schedule', 'step-returned[step 0]'));
  expect(random.out.join('\n')).toContain('create-user ana@example.com committed twice');
  expect(random.status).toBe(1);
}, 300_000);

describe('the command line', () => {
  test('--vercel-workflow with --input: exit 1 at the step that repeats the refund, with the line that replays it', async () => {
    const r = await runMain(['check', '--vercel-workflow', `${FIXTURES}/workflows/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', 'step-returned[step 0]']);
    const stdout = r.out.join('\n');
    // Named by its function, not its file; its effects are recorded with no args, and none are printed.
    expect(stdout).toMatch(/^supportWorkflow \(the workflow of test\/fixtures\/vercel-modules\/workflows\/unkeyed\.ts\) under /);
    expect(stdout).toContain('what differs from the baseline:\n    refund O-7 committed twice\n');
    expect(stdout).toContain('step 0 (refund) returned   <-- KILL');
    expect(stdout).toContain(`replay: npx killpoint check --vercel-workflow ${FIXTURES}/workflows/unkeyed.ts --input ${FIXTURES}/input.json --schedule ${REFUND_RETURNED}`);
    expect(r.status).toBe(1);
  }, 300_000);

  test('a workflow whose runs never killed differ is bad input, naming where, though its check explores by equivalence', async () => {
    const r = await runMain(['check', '--vercel-workflow', `${FIXTURES}/workflows/not-repeatable.ts`, '--input', `${FIXTURES}/input.json`]);
    expect(r.err.join('\n')).toMatch(/not-repeatable\.ts: two runs without a kill differ at effect 0: refund O-7 #\d+ .* in the first, refund O-7 #\d+ .* in the second/);
    expect(r.status).toBe(2);
  }, 300_000);

  test('a workflow that is not there is bad input naming the workflows the module holds', async () => {
    const r = await runMain(['check', '--vercel-workflow', `${FIXTURES}/workflows/keyed.ts`, '--input', `${FIXTURES}/input.json`, '--workflow-export', 'refundWorkflow']);
    expect(r.status).toBe(2);
    expect(r.err.join('\n')).toMatch(/keyed\.ts: no workflow refundWorkflow \(its workflows: supportWorkflow\)/);
  }, 300_000);

  test("a module the SDK's builder refuses is bad input naming its first error and where it is, and its build leaves no folder", async () => {
    // The builds this process keeps (the modules above, removed when it exits).
    const builds = join(PROJECT_ROOT, 'node_modules', '.cache', 'killpoint', 'vercel-workflow');
    const mine = () => (existsSync(builds) ? readdirSync(builds).filter((name) => name.endsWith(`.${process.pid}.tmp`)).sort() : []);
    const before = mine();
    const r = await runMain(['check', '--vercel-workflow', `${FIXTURES}/broken/node-in-workflow.ts`, '--input', `${FIXTURES}/input.json`]);
    expect(r.status).toBe(2);
    expect(r.err.join('\n')).toMatch(/node-in-workflow\.ts failed to build into workflow and step bundles: .*node-in-workflow\.ts:7: You are attempting to use "node:fs"/);
    expect(mine()).toEqual(before);
  }, 300_000);

  test('lives in process run on threads started from the module bundled (a thread has no TypeScript loader): with bundling turned off, the check is refused, naming --tier process', async () => {
    process.env[BUNDLE_VARIABLE] = '0';
    try {
      const r = await runMain(['check', '--vercel-workflow', `${FIXTURES}/workflows/unkeyed.ts`, '--input', `${FIXTURES}/input.json`]);
      expect(r.status).toBe(2);
      expect(r.err.join('\n')).toMatch(/unkeyed\.ts: its lives in process run on threads started from one bundle of the module, which was not made \(KILLPOINT_MODULE_BUNDLE=0.*check it with --tier process/);
    } finally {
      delete process.env[BUNDLE_VARIABLE];
    }
  }, 120_000);

  test('the killpoint binary exits (2) after a build that fails where the builder leaves its esbuild running: a module outside any project, whose imports of the SDK resolve nowhere', () => {
    const project = mkdtempSync(join(tmpdir(), 'killpoint-no-project-'));
    try {
      mkdirSync(join(project, 'workflows'));
      writeFileSync(join(project, 'workflows', 'none.ts'), "export async function notAWorkflow() {\n  return 1;\n}\nexport const readEffects = () => [];\n");
      const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), 'check', '--vercel-workflow', join(project, 'workflows', 'none.ts'), '--input', '{"a":1}'], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/none\.ts failed to build into workflow and step bundles: .*Could not resolve "workflow/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 120_000);
});
