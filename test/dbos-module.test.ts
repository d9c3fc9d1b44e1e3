// A user's own DBOS workflow, checked unchanged: the module registers the workflow and reads back
// its effects; killpoint launches DBOS on its own system database (PGlite here), runs the workflow
// on its input in child processes and kills them right after each step starts, returns and is
// recorded. Parallel steps run one at a time in the order the picks choose.
//
// PGlite, served from this process, stops once no session holds it; the file holds it from first
// to last test, so that it starts once here instead of once per test (each run has a workflow id
// of its own, so what one test leaves in it is read by no other).
//
// `npm test` runs the sample (test/suite.ts): the search of the unkeyed workflow to its minimal
// failing kill point (5 s), and the tests of a second or less on the PGlite it started (keyed, the
// events, the command line); `npm run engines` (KILLPOINT_SUITE=all) runs every test.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkDbos, checkDbosSchedule } from '../src/harness/api/check-module.js';
import { holdBackend, stopBackends } from '../src/harness/engines/dbos/backend.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { runMain } from './helpers.js';
import { fullSuiteTest } from './suite.js';

const FIXTURES = 'test/fixtures/dbos-modules';
const input = { orderId: 'O-7', email: 'dana@example.com' };

let release = (): void => {};
beforeAll(() => void (release = holdBackend('pglite')));
afterAll(async () => {
  release();
  await stopBackends();
});

/** The keyed workflow killed right after step 0 returns, under the given order of the two steps: judged once, read by two tests. */
const keyedRuns = new Map<string, ReturnType<typeof checkDbosSchedule>>();
function keyedKilledAfterReturn(picks: number[]): ReturnType<typeof checkDbosSchedule> {
  const key = picks.join(',');
  let check = keyedRuns.get(key);
  if (check === undefined) keyedRuns.set(key, (check = checkDbosSchedule({ module: `${FIXTURES}/keyed.ts`, input }, [2], picks)));
  return check;
}

describe('a refund workflow of your own', () => {
  test('without keys, the earliest kill point that repeats a write is the refund step returning before DBOS records it', async () => {
    const check = await checkDbos({ module: `${FIXTURES}/unkeyed.ts`, input, interleavingBound: 1 });
    expect(check.ok).toBe(false);
    expect(check.minimal?.killAt).toEqual(['step-return[step 0]']);
    expect(check.minimal?.differences[0]).toMatch(/^refund O-7 committed twice/);
    expect(check.minimal?.replay).toMatch(/^npx killpoint check --dbos test\/fixtures\/dbos-modules\/unkeyed\.ts --input '\{"orderId":"O-7","email":"dana@example\.com"\}' --schedule 2/);
  }, 300_000);

  test('with keys made of the workflow id and the step number, the same kill is harmless, in either order of the two steps', async () => {
    for (const picks of [[0], [1]]) {
      const check = await keyedKilledAfterReturn(picks);
      expect(check.report).toContain('<-- KILL');
      expect(check.ok).toBe(true);
    }
  }, 300_000);

  // Read from the run never killed that the test above judges against (the same module, input and
  // order of steps), rather than a run of its own.
  test('the events are the workflow start, each step start, return and record, and the workflow record', async () => {
    const check = await keyedKilledAfterReturn([0]);
    expect(check.judged.baseline.lives[0]?.events.map((e) => e.kind)).toEqual(['workflow-started', 'step-start', 'step-return', 'step-recorded', 'step-start', 'step-return', 'step-recorded', 'workflow-recorded']);
  }, 300_000);
});

// In process (runMain: the same main, its exit status and what it prints), on the PGlite held above.
test('the command line: --dbos with --input, exit 1 at the kill point that repeats the refund', async () => {
  const r = await runMain(['check', '--dbos', `${FIXTURES}/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', 'step-return[step 0]']);
  const stdout = r.out.join('\n');
  // Named by the workflow DBOS registers (support-refund), not by its module's file.
  expect(stdout).toMatch(/^support-refund \(the workflow of test\/fixtures\/dbos-modules\/unkeyed\.ts\) under /);
  expect(stdout).toContain('step 0 (refund): returned   <-- KILL');
  expect(stdout).toContain('refund O-7 committed twice');
  expect(r.status).toBe(1);
}, 300_000);

// A corpus entry of a module names no task (its strategy says it all): one written before tasks were
// named by their workflow replays as it did, its report named as the check's is.
test('a corpus entry of the module replays as expected, named by its workflow; --json names it too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-dbos-module-corpus-'));
  try {
    const entry = join(dir, 'unkeyed.json');
    writeFileSync(entry, JSON.stringify({ note: 'the refund step returned, not yet recorded', engine: 'dbos', strategy: `${FIXTURES}/unkeyed.ts --input ${FIXTURES}/input.json`, schedule: { kills: [2] }, property: 'promised checks', expected: { failed: ['done-twice'] } }));
    const r = await runMain(['check', entry]);
    const stdout = r.out.join('\n');
    expect(stdout).toContain('unkeyed.json: replays as expected');
    expect(stdout).toMatch(/^ {2}support-refund \(the workflow of test\/fixtures\/dbos-modules\/unkeyed\.ts\) under /m);
    expect(r.status).toBe(0);
    const json = await runMain(['check', '--dbos', `${FIXTURES}/unkeyed.ts`, '--input', `${FIXTURES}/input.json`, '--schedule', '-1', '--json']);
    expect(JSON.parse(json.out.join('\n'))[0]).toMatchObject({ scenario: 'support-refund', engine: 'dbos', ok: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);

// Randomness in a life is seeded by the life's number, in process too (user-module/seeded-randomness.ts,
// in the life's async context on killpoint's own thread): a user's id made with randomUUID() is the
// same in both runs never killed (before: they differed, exit 2); a recovery from the start is
// another life, with a new id, as after a real restart.
test('a sign-up that makes its user id with randomUUID, in process: its runs never killed agree, and every kill point holds', async () => {
  const signUp = (input: object, ...rest: string[]) => ['check', '--dbos', `${FIXTURES}/sign-up.ts`, '--input', JSON.stringify({ email: 'ana@example.com', ...input }), ...rest];
  const withId = await runMain(signUp({ answerWithId: true }, '--schedule', '-1'));
  expect(withId.err.join('\n')).not.toContain('two runs without a kill differ');
  expect(withId.out.join('\n')).toMatch(/answer: "user [0-9a-f-]{36}"; baseline: "user [0-9a-f-]{36}"/);
  const every = await runMain(signUp({}));
  expect(every.status, every.err.join('\n')).toBe(0);
}, 300_000);

// Every life runs under the run's own workflow id, whichever copy of a state the explorer runs it
// from: a key made of DBOS.workflowID and DBOS.stepID, as DBOS advises, names the run and the step
// after any kill. A key made of a random id in the step is new in each repeat: the check must fail.
fullSuiteTest('a workflow keyed by DBOS.workflowID and DBOS.stepID passes every kill point, in either tier; keyed by a random id per step, its refund is done twice (the same search)', async () => {
  for (const tier of [[], ['--tier', 'process']]) {
    const keyed = await runMain(['check', '--dbos', `${FIXTURES}/keyed-by-dbos-id.ts`, '--input', `${FIXTURES}/input.json`, ...tier]);
    expect(keyed.err.join('\n'), tier.join(' ')).toBe('');
    expect(keyed.status).toBe(0);
  }
  const random = await runMain(['check', '--dbos', `${FIXTURES}/keyed-randomly.ts`, '--input', `${FIXTURES}/input.json`]);
  expect(random.out.join('\n')).toContain('refund O-7 committed twice');
  expect(random.status).toBe(1);
}, 300_000);

// Modules as people write them: CommonJS (require() and module.exports) in a .ts file of a package
// of "type": "module", as tsx runs it; a .cts and a .mts file, which say their own format. Each is
// bundled for its lives, in either tier.
fullSuiteTest('a module written as CommonJS, or in a .cts or .mts file, checks without error in either tier', async () => {
  for (const module of ['commonjs.ts', 'keyed.cts', 'keyed.mts']) {
    for (const tier of [[], ['--tier', 'process']]) {
      const r = await runMain(['check', '--dbos', `${FIXTURES}/${module}`, '--input', `${FIXTURES}/input.json`, '--schedule', 'step-return[step 0]', ...tier]);
      expect(r.err.join('\n'), `${module} ${tier.join(' ')}`).toBe('');
      expect(r.out.join('\n')).toContain('step 0 (refund): returned   <-- KILL');
      expect(r.status).toBe(0);
    }
  }
}, 300_000);

// A saga: the hotel step fails, the flight is cancelled, and the workflow ends in that error, which
// DBOS records as its outcome. killpoint takes it in the answer's place (before, the run never
// killed "did not finish": exit 2); the compensation is an effect like any other.
fullSuiteTest('a booking saga that throws after compensating: keyed, every kill point holds; unkeyed, a kill after the cancel returned cancels twice', async () => {
  const saga = (name: string, ...rest: string[]) => ['check', '--dbos', `${FIXTURES}/${name}.ts`, '--input', '{"trip":"Lisbon"}', ...rest];
  const keyed = await runMain(saga('saga-keyed'));
  expect(keyed.err.join('\n')).not.toContain('did not finish');
  expect(keyed.out.join('\n')).toContain('every promised check holds');
  expect(keyed.status).toBe(0);
  const unkeyed = await runMain(saga('saga-unkeyed', '--schedule', 'step-return[step 2]'));
  expect(unkeyed.out.join('\n')).toContain('step 2 (cancel-flight): returned   <-- KILL');
  expect(unkeyed.out.join('\n')).toContain('cancel flight Lisbon committed twice');
  expect(unkeyed.status).toBe(1);
}, 300_000);

// The killpoint binary itself, kept so that its exit status and its one stderr line (nothing else
// on stderr) stay proven end to end for --dbos, with PGlite started in its process and stopped so
// that it exits.
fullSuiteTest('a module whose createWorkflow returns something other than a registered workflow is bad input, in one line', () => {
  const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), 'check', '--dbos', `${FIXTURES}/not-a-workflow.ts`, '--input', `${FIXTURES}/input.json`], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });
  expect(r.stderr).toMatch(/createWorkflow\(ctx\) returned string: expected the workflow function DBOS\.registerWorkflow returned/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.status).toBe(2);
}, 300_000);

// The time in a life is the life's own clock, in process too (user-module/life-clock.ts): an order
// that stamps its receipt with new Date() and answers with Date.now() reads the same times in both
// runs never killed (before: they differed, exit 2); a recovery from the start is another life,
// a day later, as after a real restart.
fullSuiteTest('an order stamped with Date.now() and new Date(), in either tier: its runs never killed agree', async () => {
  for (const tier of [[], ['--tier', 'process']]) {
    const r = await runMain(['check', '--dbos', `${FIXTURES}/stamped.ts`, '--input', '{"orderId":"O-1"}', '--schedule', '-1', ...tier]);
    expect(r.err.join('\n'), tier.join(' ')).not.toContain('two runs without a kill differ');
    expect(r.out.join('\n')).toContain('answer: "placed at 1893542400000"; baseline: "placed at 1893456000000"');
  }
}, 300_000);

// DBOS.sleep ends on killpoint's clock (engines/dbos/module/sleeps.ts): its wake time is recorded in
// the system database as DBOS records it, and the clock moves there at once. A reminder that
// sleeps an hour between two writes checks in the time of its lives alone (an hour in each before;
// the 5 s sleep's check took 91 s, 40 s after, on a loaded machine). Keyed, every kill point holds,
// the sleep's two among them; unkeyed, a write is still done twice. A sleep of two days outlasts a
// life's head start (a day): a recovery killed as it wakes, and the next, still wake on the
// recorded time, in either tier.
fullSuiteTest('a reminder that sleeps an hour (DBOS.sleep) between two writes: keyed, every kill point holds, the sleep ending on killpoint\'s clock; unkeyed, done twice', async () => {
  const reminder = (input: object, ...rest: string[]) => ['check', '--dbos', `${FIXTURES}/sleepy.ts`, '--input', JSON.stringify({ booking: 'B-1', sleepMs: 3_600_000, keyed: true, ...input }), ...rest];
  const keyed = await runMain(reminder({}));
  expect(keyed.err.join('\n')).toBe('');
  expect(keyed.status).toBe(0);
  const unkeyed = await runMain(reminder({ keyed: false }));
  expect(unkeyed.out.join('\n')).toContain('book B-1 committed twice');
  expect(unkeyed.status).toBe(1);
  for (const tier of [[], ['--tier', 'process']]) {
    const twoDays = await runMain(reminder({ sleepMs: 172_800_000 }, '--schedule', 'sleep[sleep 0],woke[sleep 0]', ...tier));
    const out = twoDays.out.join('\n');
    expect(out, tier.join(' ')).toMatch(/sleep 0: the run sleeps \(its wake time recorded\)   <-- KILL\n.*life 2 \(recovery 1\).*\n.*sleep 0: over   <-- KILL\n.*life 3 \(recovery 2\).*\n.*sleep 0: over\n/);
    expect(out).toContain('every promised check holds');
  }
}, 300_000);

// An app whose datasource fails at launch is reported with the datasource's own error in process
// too (user-module/repeat.ts: a run from scratch that does not finish ends the check; before, the
// in-process tier ran the first life again, whose workflow, registered when the module loaded, DBOS
// had cleared, and reported that as handing out the same workflow function twice).
fullSuiteTest('an app whose datasource cannot connect at launch: the same line in either tier, naming the datasource\'s error', async () => {
  const lines: string[] = [];
  for (const tier of [[], ['--tier', 'process']]) {
    const r = await runMain(['check', '--dbos', `${FIXTURES}/datasource-fails.ts`, '--input', '{"orderId":"O-1"}', ...tier]);
    const err = r.err.join('\n');
    expect(err, tier.join(' ')).toContain('the run without a kill did not finish: the DBOS life crashed (exit 1): Error: orders-db: connect ECONNREFUSED 127.0.0.1:5999');
    expect(r.status).toBe(2);
    lines.push(err.replace(' --tier process', ''));
  }
  expect(lines[0]).toBe(lines[1]);
}, 300_000);
