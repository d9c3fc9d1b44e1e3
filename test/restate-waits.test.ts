// A user's Restate service that waits for a person (it awaits an awakeable), checked across its
// wait: --resume gives the person's answers, one per wait in order; killpoint resolves the
// awakeable with it through the server's ingress. The kill points at the wait are named by it
// (awakeable[refund#1] once the handler awaits it, resume[refund#1] once the server accepted the
// resolve), a recovery started while the run waits is handed the turn, and one started after the
// server accepted the resolve goes on with what the server kept, sending nothing. Each mistake in the
// answers is bad input: exit 2, one line. The same for a workflow whose run awaits a durable
// promise (promise[approval#1]), resolved through a shared handler. The services are
// test/fixtures/restate-modules/approval-*.ts, run in this process through the command line's main.
//
// Every schedule is a run from scratch on a real restate-server, so `npm test` runs a sample (see
// test/suite.ts): the kill while the run waits, in process (about 6 s here). `npm run engines` runs the rest.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { restateKillPoints } from '../src/harness/api/check-module.js';
import { killpointTests, type TestApi } from '../src/vitest/index.js';
import { leftByThisProcess, runMain } from './helpers.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const FIXTURES = 'test/fixtures/restate-modules';
const KEYED = `${FIXTURES}/approval-keyed.ts`;
const UNKEYED = `${FIXTURES}/approval-unkeyed.ts`;
const WORKFLOW_KEYED = `${FIXTURES}/approval-workflow-keyed.ts`;
const WORKFLOW_UNKEYED = `${FIXTURES}/approval-workflow-unkeyed.ts`;
const INPUT = `${FIXTURES}/input.json`;
const check = (module: string, ...rest: string[]) => ['check', '--restate', module, '--input', INPUT, ...rest];

const listeners = process.getMaxListeners();
beforeAll(() => void process.setMaxListeners(listeners + 10));
afterAll(() => {
  process.setMaxListeners(listeners);
  // Every session stopped its server and its lives, and removed its folders, the refused ones too.
  expect(leftByThisProcess()).toEqual([]);
});

describe('lives across the wait', () => {
  test('killed while the handler awaits the awakeable, the recovery comes back to the same wait and is handed the turn: exit 0', async () => {
    const r = await runMain(check(KEYED, '--resume', '[true]', '--schedule', 'awakeable[refund#1]'));
    const out = r.out.join('\n');
    expect(out).toMatch(/awakeable refund#1: the run waits {3}<-- KILL/);
    expect(out).toMatch(/life 2 \(recovery 1\): 9 events, ran to its end\n\s+0\s+awakeable refund#1: the run waits\n\s+1\s+resume refund#1: turn delivered\n\s+2\s+step 1 \(refund\): ctx\.run started/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  fullSuiteTest('the kill points at the wait are named by it, between the step before it and the refund', async () => {
    const points = (await restateKillPoints({ module: KEYED, inputFile: INPUT, resume: [true] })).map((p) => p.identity);
    expect(points).toEqual([
      'start',
      'run-start[step 0]',
      'run-return[step 0]',
      'step-recorded[step 0]',
      'awakeable[refund#1]',
      'resume[refund#1]',
      'run-start[step 1]',
      'run-return[step 1]',
      'step-recorded[step 1]',
      'run-start[step 2]',
      'run-return[step 2]',
      'step-recorded[step 2]',
      'invocation-done',
    ]);
  }, 120_000);

  // The resolve is the server's once it answered: the recovery sends none, and the handler goes on
  // with the value the server kept (had the server lost it, the recovery would wait until its limit).
  for (const tier of [[], ['--tier', 'process']]) {
    fullSuiteTest(`killed right after the server accepted the resolve${tier.length > 0 ? ', by SIGKILL' : ''}, the recovery goes on with the value the server kept, sending nothing: exit 0`, async () => {
      const r = await runMain(check(KEYED, '--resume', '[true]', ...tier, '--schedule', 'resume[refund#1]'));
      const out = r.out.join('\n');
      expect(out).toMatch(/resume refund#1: turn delivered {3}<-- KILL/);
      expect(out).toMatch(/life 2 \(recovery 1\): 7 events, ran to its end\n\s+0\s+step 1 \(refund\): ctx\.run started/);
      expect(out).toContain('what differs from the baseline:\n    nothing');
      expect(r.status).toBe(0);
    }, 120_000);
  }

  fullSuiteTest('keyed by the invocation id and the step, every kill point holds: exit 0', async () => {
    const r = await runMain(check(KEYED, '--resume', '[true]'));
    const out = r.out.join('\n');
    expect(out).toContain('13 schedules of up to 1 kill');
    expect(out).toContain('every promised check holds');
    expect(r.status).toBe(0);
  }, 120_000);

  fullSuiteTest('killed while it waits, by SIGKILL, the recovery is handed the turn: exit 0', async () => {
    const r = await runMain(check(KEYED, '--resume', '[true]', '--tier', 'process', '--schedule', 'awakeable[refund#1]'));
    expect(r.out.join('\n')).toMatch(/life 2 \(recovery 1\): 9 events, ran to its end\n\s+0\s+awakeable refund#1: the run waits\n\s+1\s+resume refund#1: turn delivered/);
    expect(r.status).toBe(0);
  }, 120_000);

  fullSuiteTest('without keys, the refund after the approval is done twice, the earliest at its closure returning: exit 1, with the line that replays it', async () => {
    const r = await runMain(check(UNKEYED, '--resume', '[true]'));
    const out = r.out.join('\n');
    expect(out).toContain('kill schedule: 6 (run-return[step 1])');
    expect(out).toMatch(/resume refund#1: turn delivered\n\s+5\s+step 1 \(refund\): ctx\.run started\n\s+6\s+step 1 \(refund\): ctx\.run returned {3}<-- KILL/);
    expect(out).toContain('refund O-7 committed twice');
    expect(out).toContain(`replay: npx killpoint check --restate ${UNKEYED} --input ${INPUT} --resume '[true]' --schedule 6`);
    expect(r.status).toBe(1);
  }, 120_000);

  fullSuiteTest('declined, the service refunds nothing, and every kill point holds: exit 0', async () => {
    const r = await runMain(check(UNKEYED, '--resume', '[false]'));
    expect(r.out.join('\n')).toContain('every promised check holds');
    expect(r.status).toBe(0);
  }, 120_000);
});

// The same refund as a workflow whose run awaits the durable promise "approval", which a shared
// handler resolves: killpoint resolves it through a shared handler of its own beside the workflow's.
fullSuiteDescribe("a workflow's durable promise", () => {
  test('the kill points at the wait are named by the promise', async () => {
    const points = (await restateKillPoints({ module: WORKFLOW_KEYED, inputFile: INPUT, resume: [true] })).map((p) => p.identity);
    expect(points.slice(3, 7)).toEqual(['step-recorded[step 0]', 'promise[approval#1]', 'resume[approval#1]', 'run-start[step 1]']);
    expect(points).toHaveLength(13);
  }, 120_000);

  test('keyed by the workflow key and the step, every kill point holds: exit 0', async () => {
    const r = await runMain(check(WORKFLOW_KEYED, '--resume', '[true]'));
    expect(r.out.join('\n')).toContain('every promised check holds');
    expect(r.status).toBe(0);
  }, 120_000);

  test('killed while the run awaits the promise, the recovery is handed the turn; killed once the promise holds it, the recovery sends nothing', async () => {
    const waiting = await runMain(check(WORKFLOW_KEYED, '--resume', '[true]', '--schedule', 'promise[approval#1]'));
    expect(waiting.out.join('\n')).toMatch(/life 2 \(recovery 1\): 9 events, ran to its end\n\s+0\s+promise approval#1: the run waits\n\s+1\s+resume approval#1: turn delivered/);
    expect(waiting.status).toBe(0);
    const resolved = await runMain(check(WORKFLOW_KEYED, '--resume', '[true]', '--schedule', 'resume[approval#1]'));
    expect(resolved.out.join('\n')).toMatch(/life 2 \(recovery 1\): 7 events, ran to its end\n\s+0\s+step 1 \(refund\): ctx\.run started/);
    expect(resolved.status).toBe(0);
  }, 120_000);

  test('without keys, the refund after the approval is done twice: exit 1', async () => {
    const r = await runMain(check(WORKFLOW_UNKEYED, '--resume', '[true]'));
    const out = r.out.join('\n');
    expect(out).toContain('kill schedule: 6 (run-return[step 1])');
    expect(out).toContain('refund O-7 committed twice');
    expect(r.status).toBe(1);
  }, 120_000);

  test('a value for another place names the promise; --handler other than run is refused: exit 2, one line each', async () => {
    const elsewhere = await runMain(check(WORKFLOW_KEYED, '--resume', '[{"to":"refund","value":true}]'));
    expect(elsewhere.err.join('\n')).toMatch(/value 1 is for "refund", but the run's wait 1 is at "approval" \(approval#1, for "ctx\.promise\(\\"approval\\"\)"\)$/);
    expect(elsewhere.status).toBe(2);
    const handler = await runMain(check(WORKFLOW_KEYED, '--resume', '[true]', '--handler', 'approve'));
    expect(handler.err.join('\n')).toMatch(/--handler approve: workflow RefundApproval is invoked through its run handler/);
    expect(handler.err.join('\n').trim().split('\n')).toHaveLength(1);
    expect(handler.status).toBe(2);
  }, 120_000);
});

fullSuiteDescribe('the answers --resume gives, each mistake bad input: exit 2, one line naming it', () => {
  const cases: [string, string[], RegExp][] = [
    ['no --resume for a service that waits, naming the wait', [], /the run waits at refund#1, for "ctx\.awakeable\(\) in the handler refund": give its answers with --resume values\.json/],
    ['a wait with no value left, naming it', ['--resume', '[]'], /the run waits at refund#1, for "ctx\.awakeable\(\) in the handler refund", with no value left in --resume \[\] \(0 given/],
    ['values left when the run ended', ['--resume', '[true, false]'], /--resume \[true, false\]: 1 value left when the run ended \(it waited 1 time, 2 values given\)/],
    ['a value for another place than the wait it falls to', ['--resume', '[{"to":"approve","value":true}]'], /--resume \[\{"to":"approve","value":true\}\]: value 1 is for "approve", but the run's wait 1 is at "refund" \(refund#1, for "ctx\.awakeable\(\) in the handler refund"\)/],
    ['a value for a place the run never waited on', ['--resume', '[{"to":"refund","value":true},{"to":"desk","value":1}]'], /: 1 value left when the run ended \(it waited 1 time, 2 values given; left for "desk", never waited on\)/],
  ];
  test.each(cases)('%s', async (_name, args, message) => {
    const r = await runMain(check(KEYED, ...args));
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 120_000);
});

fullSuiteTest('killpointTests with resume: [true] declares one test, which passes', async () => {
  const declared: { name: string; body: () => Promise<void> }[] = [];
  const api: TestApi = { describe: (_name, body) => body(), test: (name, body) => void declared.push({ name, body }) };
  killpointTests('refund approval', { restate: KEYED, inputFile: INPUT, resume: [true] }, api);
  expect(declared.map((t) => t.name)).toEqual(['approval-keyed.ts: survives every kill point, up to 1 kill (with seed=1)']);
  await declared[0]!.body();
}, 120_000);

// --redeliver: the front end retrying a turn it saw no acknowledgement of (the handler had not
// waited again nor ended) resolves it again (waits.ts): an awakeable or a promise is one wait's
// alone, and completed once, so no wait can take it.
fullSuiteDescribe('--redeliver: the resolve sent again', () => {
  test('killed once the server accepted the awakeable\'s resolve: resolved again, the server keeps the first, ignored: exit 0', async () => {
    const r = await runMain(check(KEYED, '--resume', '[true]', '--redeliver', '--schedule', 'resume[refund#1]'));
    const out = r.out.join('\n');
    expect(out).toMatch(/life 2 \(recovery 1\): 9 events, ran to its end\n\s+0\s+redeliver refund#1: turn delivered again\n\s+1\s+step 1 \(refund\): ctx\.run started/);
    expect(out).toMatch(/redelivered refund#1: ignored\n\s+\d+\s+invocation done/);
    expect(out).toContain("  second delivery (--redeliver):\n    refund#1's turn, delivered again to life 2: ignored\n");
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test("a workflow's durable promise, resolved again through its shared handler once it holds the value: refused, ignored; --json names it", async () => {
    const r = await runMain(check(WORKFLOW_KEYED, '--resume', '[true]', '--redeliver', '--schedule', 'resume[approval#1]', '--json'));
    const [result] = JSON.parse(r.out.join('\n')) as { ok: boolean; secondDeliveries: unknown[] }[];
    expect(result).toMatchObject({ ok: true, secondDeliveries: [{ wait: 'approval#1', life: 2, effect: 'ignored', answered: null }] });
    expect(r.status).toBe(0);
  }, 120_000);
});
