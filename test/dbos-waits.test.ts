// A user's DBOS workflow that waits for a person (DBOS.recv('approval')), checked across its
// waits: --resume gives the person's answers, one per wait in order, each sent to the workflow
// with DBOS.send from outside it; every life of every kill schedule hands the same answer to the
// same wait, a recovery that finds the workflow waiting is handed the answer of that wait, and
// the kill points at a wait are named by it (recv[approval#1], resume[approval#1]). Each mistake
// in the answers is bad input: exit 2, one line. The workflows are test/fixtures/dbos-modules'
// refund-approval, run in this process through the command line's main.
//
// PGlite, served from this process, is held from first to last test (see dbos-module.test.ts).
// `npm test` runs the sample (test/suite.ts): a kill while the workflow waits, and beside it the
// kill points and the bad input, each a first life on the PGlite it started; `npm run engines`
// (KILLPOINT_SUITE=all) runs every test.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dbosKillPoints } from '../src/harness/api/check-module.js';
import { holdBackend, stopBackends } from '../src/harness/engines/dbos/backend.js';
import { runMain } from './helpers.js';
import { fullSuiteTest } from './suite.js';

const FIXTURES = 'test/fixtures/dbos-modules';
const KEYED = `${FIXTURES}/refund-approval-keyed.ts`;
const UNKEYED = `${FIXTURES}/refund-approval-unkeyed.ts`;
const ONE_LINE = `${FIXTURES}/approval-one.json`;
const TWO_LINES = `${FIXTURES}/approval-two.json`;

let release = (): void => {};
beforeAll(() => void (release = holdBackend('pglite')));
afterAll(async () => {
  release();
  await stopBackends();
});

describe('lives across the waits', () => {
  test('killed while it waits for the second answer, the recovery runs up to the same recv and is handed that answer, not the first', async () => {
    const r = await runMain(['check', '--dbos', KEYED, '--input', TWO_LINES, '--resume', '[true, false]', '--schedule', 'recv[approval#2]']);
    const out = r.out.join('\n');
    // The recovery's first events: the recv it runs up to (its steps before are recorded), and the answer of approval#2 (false: L2 is not refunded, as in the run never killed).
    expect(out).toMatch(/recv approval#2: the workflow waits {3}<-- KILL\n\s+life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+recv approval#2: the workflow waits\n\s+1\s+resume approval#2: turn delivered\n\s+2\s+step 7 \(email\): start/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('the kill points at a wait are named by it: recv[approval#1] once the workflow waits, resume[approval#1] once the answer is sent', async () => {
    const points = (await dbosKillPoints({ module: KEYED, inputFile: TWO_LINES, resume: [true, false] })).map((p) => p.identity);
    expect(points).toEqual(expect.arrayContaining(['recv[approval#1]', 'resume[approval#1]', 'recv[approval#2]', 'resume[approval#2]']));
    expect(points.indexOf('resume[approval#1]')).toBe(points.indexOf('recv[approval#1]') + 1);
    expect(points.indexOf('recv[approval#1]')).toBe(points.indexOf('step-recorded[step 0]') + 1);
  }, 120_000);

  // The answer is sent with an idempotency key of the wait's own: the recovery's send of the same
  // answer adds no second message. Sent without one (tried), the second message waits unread and
  // the next recv on the topic takes it: approval#2 gets approval#1's "true" and L2 is refunded.
  fullSuiteTest('killed once the first answer is sent and before recv took it, the recovery sends it again and it is taken once: the second wait gets its own answer, in either tier', async () => {
    for (const tier of [[], ['--tier', 'process']]) {
      const r = await runMain(['check', '--dbos', KEYED, '--input', TWO_LINES, '--resume', '[true, false]', ...tier, '--schedule', 'resume[approval#1]']);
      const out = r.out.join('\n');
      expect(out).toMatch(/resume approval#1: turn delivered {3}<-- KILL\n\s+life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+recv approval#1: the workflow waits\n\s+1\s+resume approval#1: turn delivered/);
      expect(out).toContain('what differs from the baseline:\n    nothing');
      expect(r.status).toBe(0);
    }
  }, 180_000);

  fullSuiteTest('two answers, true then false, keyed by DBOS.workflowID and DBOS.stepID: every kill point holds (19 schedules)', async () => {
    const r = await runMain(['check', '--dbos', KEYED, '--input', TWO_LINES, '--resume', '[true, false]']);
    const out = r.out.join('\n');
    expect(out).toContain('19 schedules of up to 1 kill');
    expect(out).toContain('every promised check holds');
    expect(r.status).toBe(0);
  }, 180_000);

  fullSuiteTest('without keys, the refund after the approval is done twice: exit 1, at the step returning after the answer was handed over', async () => {
    const r = await runMain(['check', '--dbos', UNKEYED, '--input', ONE_LINE, '--resume', '[true]']);
    const out = r.out.join('\n');
    expect(out).toMatch(/resume approval#1: turn delivered\n\s+6\s+step 3 \(refund\): start\n\s+7\s+step 3 \(refund\): returned {3}<-- KILL/);
    expect(out).toContain('refund A-17/L1 committed twice');
    expect(out).toContain(`replay: npx killpoint check --dbos ${UNKEYED} --input ${ONE_LINE} --resume '[true]' --schedule 7`);
    expect(r.status).toBe(1);
  }, 180_000);
});

// --redeliver: the web server retrying the POST of a turn it saw no acknowledgement of (the
// workflow had not waited again nor ended) sends it again, a new message (waits.ts); the recv that
// finds it first takes it. Each outcome on a workflow of its own.
interface CaseJson {
  ok: boolean;
  secondDeliveries: { wait: string; life: number; effect: string; answered: string | null }[];
}
const LOOP = `${FIXTURES}/approval-loop.ts`;

describe('--redeliver: the approval sent again, a second message', () => {
  fullSuiteTest('a workflow that recv\'s in a loop acts on it twice: applied twice (approval#2), L1 refunded twice, exit 1; the person\'s next answers go to the next recvs', async () => {
    const r = await runMain(['check', '--dbos', LOOP, '--input', TWO_LINES, '--resume', '["L1", "L2", "done"]', '--redeliver', '--schedule', 'step-recorded[step 3]']);
    const out = r.out.join('\n');
    expect(out).toMatch(/life 2 \(recovery 1\): 16 events, ran to its end\n\s+0\s+redeliver approval#1: turn delivered again\n\s+1\s+step 6 \(refund\): start/);
    expect(out).toMatch(/recv approval#3: the workflow waits\n\s+\d+\s+resume approval#3: turn delivered[\s\S]*recv approval#4: the workflow waits/);
    expect(out).toContain('refund A-17/L1 committed twice');
    expect(out).toContain("  second delivery (--redeliver):\n    approval#1's turn, delivered again to life 2: applied twice (approval#2)\n");
    expect(out).toContain(`replay: npx killpoint check --dbos ${LOOP} --input ${TWO_LINES} --resume '["L1", "L2", "done"]' --redeliver --schedule 8`);
    expect(r.status).toBe(1);
  }, 180_000);

  fullSuiteTest('a workflow that asks once per line: the approval answers the second question (L2 refunded, exit 1), killed after the refund or once the first message was sent and before recv took it; --json names it', async () => {
    for (const schedule of ['step-recorded[step 3]', 'resume[approval#1]']) {
      const r = await runMain(['check', '--dbos', KEYED, '--input', TWO_LINES, '--resume', '[true, false]', '--redeliver', '--schedule', schedule, '--json']);
      const [result] = JSON.parse(r.out.join('\n')) as CaseJson[];
      expect(result!.secondDeliveries, schedule).toEqual([{ wait: 'approval#1', life: 2, effect: 'answering a later question', answered: 'approval#2' }]);
      expect(result!.ok).toBe(false);
      expect(r.status).toBe(1);
    }
  }, 240_000);

  fullSuiteTest('killed once the run took its last answer and before it ended: the message sent again is never read, ignored: exit 0, text and --json', async () => {
    const args = ['check', '--dbos', KEYED, '--input', TWO_LINES, '--resume', '[true, false]', '--redeliver', '--schedule', 'step-recorded[step 7]'];
    const r = await runMain(args);
    const out = r.out.join('\n');
    expect(out).toMatch(/life 2 \(recovery 1\): 3 events, ran to its end\n\s+0\s+redeliver approval#2: turn delivered again\n\s+1\s+redelivered approval#2: ignored\n/);
    expect(out).toContain("  second delivery (--redeliver):\n    approval#2's turn, delivered again to life 2: ignored\n");
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
    const json = await runMain([...args, '--tier', 'process', '--json']);
    expect((JSON.parse(json.out.join('\n')) as CaseJson[])[0]!.secondDeliveries).toEqual([{ wait: 'approval#2', life: 2, effect: 'ignored', answered: null }]);
    expect(json.status).toBe(0);
  }, 240_000);
});

describe('the answers --resume gives, each mistake bad input: exit 2, one line naming it', () => {
  const cases: [string, string[], RegExp][] = [
    ['no --resume for a workflow that waits, naming the topic', ['--input', ONE_LINE], /the run waits at approval#1, for \{"DBOS\.recv":"approval"\}: give its answers with --resume values\.json/],
    ['a wait with no value left, naming the topic', ['--input', TWO_LINES, '--resume', '[true]'], /the run waits at approval#2, for \{"DBOS\.recv":"approval"\}, with no value left in --resume \[true\] \(1 given/],
    ['values left when the run ended', ['--input', ONE_LINE, '--resume', '[true, false]'], /--resume \[true, false\]: 1 value left when the run ended \(it waited 1 time, 2 values given\)/],
    ['a value for another topic than the wait it falls to', ['--input', ONE_LINE, '--resume', '[{"to":"review","value":true}]'], /--resume \[\{"to":"review","value":true\}\]: value 1 is for "review", but the run's wait 1 is at "approval" \(approval#1, for \{"DBOS\.recv":"approval"\}\)/],
  ];
  test.each(cases)('%s', async (_name, args, message) => {
    const r = await runMain(['check', '--dbos', KEYED, ...args, '--schedule', '-1']);
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 120_000);
});
