// A user's Vercel workflow that waits for a person on a hook (createHook(), resumed with
// resumeHook(token, payload)), checked across the wait: --resume gives the person's answers, one
// per wait in order; the life sees the run suspended on the hook, says the wait (hook[TOKEN#1]),
// hands the turn (resume[TOKEN#1]) with resumeHook, and the world records it (hook-received[TOKEN#1]).
// A recovery started while the run waits is handed the turn, the same one when it was handed before
// the kill; a payload the world recorded is kept. Each mistake in the answers is bad input: exit 2,
// one line naming the hook's token. The workflow is test/fixtures/vercel-modules' refund approval.
// `npm test` runs the sample (test/suite.ts): every kill point with keys, and a wait given no value;
// `npm run engines` (KILLPOINT_SUITE=all) runs every test.

import { afterAll, expect, test } from 'vitest';
import { checkVercelWorkflow, vercelWorkflowKillPoints } from '../src/harness/api/check-module.js';
import { compareTiers } from '../src/harness/differential/in-process-vs-process.js';
import { vercelModuleSpec, vercelModuleSystem } from '../src/harness/engines/vercel-workflow/module/system.js';
import { killPointsNamed, leftByThisProcess, runMain } from './helpers.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const WORKFLOW = 'test/fixtures/vercel-modules/workflows/refund-approval.ts';
const input = (keyed: boolean) => ({ orderId: 'O-7', email: 'dana@example.com', keyed });
const WAIT = 'refund-approval:O-7#1';
const check = (keyed: boolean, ...rest: string[]) => runMain(['check', '--vercel-workflow', WORKFLOW, '--input', JSON.stringify(input(keyed)), ...rest]);

afterAll(() => {
  // No life still running, no run's folder left, the refused checks' too.
  expect(leftByThisProcess()).toEqual([]);
});

test('keyed by run and step, every kill point holds with the approval given; the kill points at the wait are named by its token: hook, resume, hook-received', async () => {
  const points = (await vercelWorkflowKillPoints({ module: WORKFLOW, input: input(true), resume: [{ approved: true }] })).map((p) => p.identity);
  const at = points.indexOf(`hook[${WAIT}]`);
  expect(at, points.join(', ')).toBeGreaterThan(0);
  expect(points.slice(at, at + 3)).toEqual([`hook[${WAIT}]`, `resume[${WAIT}]`, `hook-received[${WAIT}]`]);
  const checked = await checkVercelWorkflow({ module: WORKFLOW, input: input(true), resume: [{ approved: true }] });
  expect(checked.report).toContain('--resume \'[{"approved":true}]\'');
  expect(checked.ok).toBe(true);
}, 120_000);

test('a hook given no value (no --resume) is bad input naming its token (before, the life was killed after 120 s with no word of the hook)', async () => {
  const r = await check(true);
  const stderr = r.err.join('\n');
  expect(stderr).toMatch(/the run waits at refund-approval:O-7#1, for \{"hook":"refund-approval:O-7"\}: give its answers with --resume values\.json/);
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(r.status).toBe(2);
}, 120_000);

fullSuiteTest('without keys, the refund after the approval is done twice at its step gap: exit 1, the replay line names --resume', async () => {
  const r = await check(false, '--resume', '[{"approved":true}]');
  const out = r.out.join('\n');
  expect(out).toMatch(/resume refund-approval:O-7#1: turn delivered[\s\S]*step 1 \(refund\) returned {3}<-- KILL/);
  expect(out).toContain('refund O-7 4200 committed twice');
  expect(out).toMatch(/replay: npx killpoint check --vercel-workflow \S+refund-approval\.ts --input '\{"orderId":"O-7","email":"dana@example\.com","keyed":false\}' --resume '\[\{"approved":true\}\]' --schedule \d+/);
  expect(r.status).toBe(1);
}, 120_000);

fullSuiteDescribe('killed at the wait', () => {
  const lifeTwo = (out: string) => out.slice(out.indexOf('life 2 (recovery 1)'));

  test('killed while it waits, the recovery finds it waiting and is handed the turn (declined: no refund, as in the run never killed)', async () => {
    const r = await check(true, '--resume', '[{"approved":false}]', '--schedule', `hook[${WAIT}]`);
    const out = r.out.join('\n');
    // The recovery replays the run, says no wait of its own, and hands the turn.
    expect(lifeTwo(out)).toMatch(/^life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+workflow invoked \(run_started\)\n\s+1\s+resume refund-approval:O-7#1: turn delivered\n\s+2\s+hook refund-approval:O-7#1: payload recorded/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('killed after the turn was handed and before resumeHook wrote it, the payload is lost with the life: the recovery is handed the same turn again, and it is delivered once', async () => {
    const r = await check(true, '--resume', '[{"approved":true}]', '--schedule', `resume[${WAIT}]`);
    const out = r.out.join('\n');
    expect(lifeTwo(out)).toMatch(/^life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+workflow invoked \(run_started\)\n\s+1\s+resume refund-approval:O-7#1: turn delivered\n/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('killed once resumeHook wrote the payload (hook_received) and before the workflow ran with it, the payload is kept: the recovery is handed no turn and the refund is done once', async () => {
    const r = await check(false, '--resume', '[{"approved":true}]', '--schedule', `hook-received[${WAIT}]`);
    const out = r.out.join('\n');
    expect(lifeTwo(out)).not.toContain('turn delivered');
    expect(lifeTwo(out)).toMatch(/step 1 \(refund\) started/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('two hooks (the manager, then finance), killed after finance was handed its turn: the recovery is handed finance\'s answer again (declined: no refund), not the manager\'s', async () => {
    const r = await runMain(['check', '--vercel-workflow', WORKFLOW, '--input', JSON.stringify({ ...input(false), finance: true }), '--resume', '[{"approved":true},{"to":"finance-approval:O-7","value":{"approved":false}}]', '--schedule', 'resume[finance-approval:O-7#1]']);
    const out = r.out.join('\n');
    expect(lifeTwo(out)).toMatch(/^life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+workflow invoked \(run_started\)\n\s+1\s+resume finance-approval:O-7#1: turn delivered\n/);
    expect(out).not.toContain('refund O-7');
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('a webhook (createWebhook(): a token the SDK makes, new in every run) is named webhook#1 and handed its turn as a POST whose body is the value; killed while it waits, the recovery is handed it', async () => {
    const r = await runMain(['check', '--vercel-workflow', WORKFLOW, '--input', JSON.stringify({ ...input(false), webhook: true }), '--resume', '[{"approved":true}]', '--schedule', 'hook[webhook#1]']);
    const out = r.out.join('\n');
    expect(lifeTwo(out)).toMatch(/^life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+workflow invoked \(run_started\)\n\s+1\s+resume webhook#1: turn delivered\n/);
    expect(lifeTwo(out)).toContain('(refund) returned');
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('in process, a life cut off at the wait says what the same life killed by SIGKILL says', async () => {
    const spec = vercelModuleSpec({ module: WORKFLOW, input: input(false), resume: [{ approved: true }] });
    const inProcess = vercelModuleSystem(spec, 'in-process');
    const points = await killPointsNamed(inProcess, inProcess.ownTask!, [`hook[${WAIT}]`, `resume[${WAIT}]`, `hook-received[${WAIT}]`]);
    const r = await compareTiers(inProcess.ownTask!, inProcess, vercelModuleSystem(spec, 'process'), { concurrency: 2, killPoints: points });
    expect(r.disagreements).toEqual([]);
    expect(r.killPoints).toBe(3);
  }, 180_000);
});

fullSuiteDescribe('the answers --resume gives, each mistake bad input: exit 2, one line naming the hook', () => {
  const cases: [string, string, RegExp][] = [
    ['a hook with no value left', '[]', /the run waits at refund-approval:O-7#1, for \{"hook":"refund-approval:O-7"\}, with no value left in --resume \[\] \(0 given/],
    ['values left when the run ended', '[{"approved":true},{"approved":false}]', /--resume \[\{"approved":true\},\{"approved":false\}\]: 1 value left when the run ended \(it waited 1 time, 2 values given\)/],
    ['a value for another hook than the one the run waits on', '[{"to":"refund-approval:O-8","value":{"approved":true}}]', /value 1 is for "refund-approval:O-8", but the run's wait 1 is at "refund-approval:O-7" \(refund-approval:O-7#1, for \{"hook":"refund-approval:O-7"\}\)/],
    ['a value for a hook the run never waited on', '[{"to":"refund-approval:O-7","value":{"approved":true}},{"to":"refund-approval:O-8","value":1}]', /1 value left when the run ended \(it waited 1 time, 2 values given; left for "refund-approval:O-8", never waited on\)/],
  ];
  test.each(cases)('%s', async (_name, resume, message) => {
    const r = await check(true, '--resume', resume);
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 120_000);
});


// --redeliver: the front end retrying a turn it saw no acknowledgement of (the run had not waited
// again nor ended) calls resumeHook again (hook-waits.ts), before the world starts the run again.
fullSuiteDescribe('--redeliver: the payload sent again', () => {
  const LOOP = 'test/fixtures/vercel-modules/workflows/approval-loop.ts';
  const LOOP_TURNS = '[{"refund":"L1"},{"refund":"L2"},{"done":true}]';
  const lifeTwo = (out: string) => out.slice(out.indexOf('life 2 (recovery 1)'));
  const loop = (...rest: string[]) => runMain(['check', '--vercel-workflow', LOOP, '--input', '{"orderId":"O-7","email":"dana@example.com"}', '--resume', LOOP_TURNS, '--redeliver', ...rest]);
  interface CaseJson {
    ok: boolean;
    secondDeliveries: { wait: string; life: number; effect: string; answered: string | null }[];
  }

  test('a hook read in a loop (for await) reads it as its next payload: applied twice (refunds:O-7#2), L1 refunded twice, exit 1; the next answers go to the next payloads', async () => {
    const r = await loop('--schedule', 'step-recorded[step 0]');
    const out = r.out.join('\n');
    // Handed again once the recovery's replay waits on the hook, for a second payload.
    expect(lifeTwo(out)).toMatch(/^life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+workflow invoked \(run_started\)\n\s+1\s+redeliver refunds:O-7#1: turn delivered again\n\s+2\s+hook refunds:O-7#1: payload recorded \(hook_received\)\n/);
    expect(lifeTwo(out)).toMatch(/hook refunds:O-7#3: the run waits\n\s+\d+\s+resume refunds:O-7#3: turn delivered/);
    expect(out).toContain('refund O-7/L1 committed twice');
    expect(out).toContain("  second delivery (--redeliver):\n    refunds:O-7#1's turn, delivered again to life 2: applied twice (refunds:O-7#2)\n");
    expect(out).toMatch(/replay: npx killpoint check --vercel-workflow \S+approval-loop\.ts --input '\{"orderId":"O-7","email":"dana@example\.com"\}' --resume '\[\{"refund":"L1"\},\{"refund":"L2"\},\{"done":true\}\]' --redeliver --schedule \d+/);
    expect(r.status).toBe(1);
  }, 120_000);

  test('killed after the turn was handed and before resumeHook wrote it: the recovery waits at that wait, and the second delivery is its one payload: exit 0', async () => {
    const r = await loop('--schedule', 'resume[refunds:O-7#1]', '--json');
    const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
    expect(result!.secondDeliveries).toEqual([{ wait: 'refunds:O-7#1', life: 2, effect: 'to the wait it was for (its first delivery never recorded)', answered: 'refunds:O-7#1' }]);
    expect(r.status).toBe(0);
  }, 120_000);

  test('as processes killed with SIGKILL, the same: --json names it', async () => {
    const r = await loop('--schedule', 'step-recorded[step 0]', '--tier', 'process', '--json');
    const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
    expect(result!.secondDeliveries).toEqual([{ wait: 'refunds:O-7#1', life: 2, effect: 'applied twice', answered: 'refunds:O-7#2' }]);
    expect(r.status).toBe(1);
  }, 120_000);

  test('a hook awaited once never reads a second payload (the manager\'s, handed again while the run waits on finance), and a hook the ended run disposed refuses it: ignored, exit 0', async () => {
    const withFinance = JSON.stringify({ ...input(true), finance: true });
    const once = await runMain(['check', '--vercel-workflow', WORKFLOW, '--input', withFinance, '--resume', '[{"approved":true},{"approved":true}]', '--redeliver', '--schedule', `hook-received[${WAIT}]`, '--json']);
    expect((JSON.parse(once.out.join('\n')) as CaseJson[])[0]!.secondDeliveries).toEqual([{ wait: WAIT, life: 2, effect: 'ignored', answered: null }]);
    expect(once.status).toBe(0);
    const ended = await check(true, '--resume', '[{"approved":true}]', '--redeliver', '--schedule', 'run-completed');
    const out = ended.out.join('\n');
    // The hook is gone with the run: resumeHook throws HookNotFoundError, and no payload is recorded.
    expect(lifeTwo(out)).toMatch(/^life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+redeliver refund-approval:O-7#1: turn delivered again\n/);
    expect(lifeTwo(out)).not.toContain('payload recorded');
    expect(out).toContain(`  second delivery (--redeliver):\n    ${WAIT}'s turn, delivered again to life 2: ignored\n`);
    expect(ended.status).toBe(0);
  }, 180_000);
});
