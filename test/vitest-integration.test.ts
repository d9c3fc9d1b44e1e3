// killpoint/vitest declares a suite the way vitest does: the corpus of schedules that once failed
// replays first, then one test per task explores every kill point and fails with the report the
// command line prints (minimal kill point, what differs, the replay command); a new failure joins
// the corpus. The vitest functions are replaced here by recorders, so the declared tests can be run
// and their failures read.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { killpointTests, type TestApi } from '../src/vitest/index.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const AGENT = ['python3', join(PROJECT_ROOT, 'agents', 'python', 'refund_agent.py')];
const corpus = mkdtempSync(join(tmpdir(), 'killpoint-user-corpus-'));
afterAll(() => rmSync(corpus, { recursive: true, force: true }));

interface Declared {
  suites: string[];
  tests: { name: string; body: () => Promise<void> }[];
}

function recorder(): { api: TestApi; declared: Declared } {
  const declared: Declared = { suites: [], tests: [] };
  return {
    declared,
    api: {
      describe: (name, body) => {
        declared.suites.push(name);
        body();
      },
      test: (name, body) => declared.tests.push({ name, body }),
    },
  };
}

async function failureOf(body: () => Promise<void>): Promise<string | null> {
  try {
    await body();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

test('one test per task; the failing one reports the minimal kill point and its replay, and joins the corpus, which replays first next time', async () => {
  const { api, declared } = recorder();
  killpointTests('python refund agent', { agent: AGENT, tasks: { 'without keys': [], 'with keys': ['--keys'] }, corpus }, api);
  expect(declared.suites).toEqual(['python refund agent']);
  expect(declared.tests.map((t) => t.name)).toEqual(['without keys: survives every kill point, up to 1 kill', 'with keys: survives every kill point, up to 1 kill']);

  const [withoutKeys, withKeys] = await Promise.all(declared.tests.map((t) => failureOf(t.body)));
  expect(withKeys).toBeNull();
  expect(withoutKeys).toMatch(/FAIL \(done twice/);
  expect(withoutKeys).toMatch(/kill schedule: \d+ \(shop-commit\[step-2\]\)/);
  expect(withoutKeys).toContain(`replay: npx killpoint harness --schedule`);
  expect(withoutKeys).toMatch(/kept in the corpus as .*python-refund-agent-without-keys-kill-\d+\.json/);
  const [kept] = readdirSync(corpus);
  const entry = JSON.parse(readFileSync(join(corpus, kept!), 'utf8')) as { suite: string; task: string; kills: number[] };
  expect(entry).toMatchObject({ suite: 'python refund agent', task: 'without keys' });

  // Declared again, the kept schedule comes first and fails again at once.
  const again = recorder();
  killpointTests('python refund agent', { agent: AGENT, tasks: { 'without keys': [], 'with keys': ['--keys'] }, corpus }, again.api);
  expect(again.declared.tests[0]!.name).toBe(`without keys: replays kill schedule ${entry.kills.join(',')} from the corpus (${join(corpus, kept!)})`);
  expect(await failureOf(again.declared.tests[0]!.body)).toMatch(/a schedule kept in the corpus fails again:[\s\S]*done twice|FAILS: done twice/);
}, 120_000);

test('a corpus entry naming a task the suite does not have is an error naming the file and field', () => {
  const { api } = recorder();
  expect(() => killpointTests('python refund agent', { agent: AGENT, tasks: { other: [] }, corpus }, api)).toThrow(/task: expected one of "other", got "without keys"/);
});

test('options that cannot work are refused when the suite is declared', () => {
  const { api } = recorder();
  expect(() => killpointTests('', { agent: AGENT }, api)).toThrow(/suite name/);
  expect(() => killpointTests('x', { agent: AGENT, kills: 3 as 1 }, api)).toThrow(/kills: expected 1 or 2, got 3/);
  expect(() => killpointTests('x', { agent: AGENT, tasks: {} }, api)).toThrow(/at least one task/);
});

const DANA = join(PROJECT_ROOT, 'scenarios', 'lantern', 'T01-dana-torn-pad.json');

test('a suite of scenario files under an engine: the seed in the title, the minimal kill point in the failure, its interleaving kept in the corpus', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-user-corpus-'));
  try {
    const { api, declared } = recorder();
    killpointTests('dana', { scenarios: [DANA], strategy: 'journal+random-keys', seed: 7, corpus: dir }, api);
    expect(declared.tests.map((t) => t.name)).toEqual(['T01-dana-torn-pad.json: survives every kill point, up to 1 kill (with seed=7)']);
    const failure = await failureOf(declared.tests[0]!.body);
    expect(failure).toMatch(/kill schedule: 57 \(shop-commit\[call_refund\]\)/);
    expect(failure).toContain('replay: npx killpoint check');
    const [kept] = readdirSync(dir);
    expect(JSON.parse(readFileSync(join(dir, kept!), 'utf8'))).toMatchObject({ suite: 'dana', task: 'T01-dana-torn-pad.json', kills: [57] });

    const again = recorder();
    killpointTests('dana', { scenarios: [DANA], strategy: 'journal+random-keys', seed: 7, corpus: dir }, again.api);
    expect(again.declared.tests[0]!.name).toMatch(/^T01-dana-torn-pad\.json: replays kill schedule 57 from the corpus/);
    expect(await failureOf(again.declared.tests[0]!.body)).toMatch(/a schedule kept in the corpus fails again/);
    const keyed = recorder();
    killpointTests('dana keyed', { scenarios: [DANA], strategy: 'journal+keys' }, keyed.api);
    expect(await failureOf(keyed.declared.tests[0]!.body)).toBeNull();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("each: 'kill point' declares one test per kill point of the run never killed, and exactly those in the gap fail", async () => {
  const { api, declared } = recorder();
  await killpointTests('dana by kill point', { scenarios: [DANA], strategy: 'journal+random-keys', each: 'kill point' }, api);
  const names = declared.tests.map((t) => t.name);
  expect(names[0]).toBe('T01-dana-torn-pad.json: survives a kill after start (kill point -1)');
  expect(names).toContain('T01-dana-torn-pad.json: survives a kill after shop-commit[call_refund] (kill point 57)');
  const failures = await Promise.all(declared.tests.map((t) => failureOf(t.body)));
  const failing = names.filter((_, i) => failures[i] !== null);
  // The refund's gap: its commit, its result reaching the agent, the journal written but not yet renamed.
  expect(failing.length).toBeGreaterThan(0);
  expect(failing.every((n) => /call_refund|journal-write/.test(n))).toBe(true);
  expect(failing).toContain('T01-dana-torn-pad.json: survives a kill after shop-commit[call_refund] (kill point 57)');
  expect(failures[names.indexOf(failing[0]!)]).toMatch(/replay: npx killpoint check/);
});

test('scenario suites refuse what cannot work, naming the field', () => {
  const { api } = recorder();
  expect(() => killpointTests('x', { scenarios: [], strategy: 'journal' }, api)).toThrow(/scenarios: expected a list of scenario files/);
  expect(() => killpointTests('x', { scenarios: [DANA], strategy: 'journal', kills: 2, each: 'kill point' }, api)).toThrow(/each: "kill point" .* kills must be 1, got 2/);
  expect(() => killpointTests('x', { scenarios: [join(tmpdir(), 'no-such-scenario.json')], strategy: 'journal' }, api)).toThrow(/no-such-scenario\.json/);
  expect(() => killpointTests('x', { scenarios: [DANA], strategy: 'journal', each: 'kill' as 'task' }, api)).toThrow(/each: expected "task" or "kill point", got "kill"/);
});

test("each: 'kill point' on an agent of another language: one test per kill point, and only those in the gap fail", async () => {
  const { api, declared } = recorder();
  await killpointTests('python refund agent by kill point', { agent: AGENT, each: 'kill point' }, api);
  const names = declared.tests.map((t) => t.name);
  expect(names[0]).toBe('its task: survives a kill after start (kill point -1)');
  expect(names).toContain('its task: survives a kill after shop-commit[step-2] (kill point 5)');
  // One after another, as vitest runs a file's tests: each is two lives of a Python process.
  const failures: (string | null)[] = [];
  for (const t of declared.tests) failures.push(await failureOf(t.body));
  const failing = names.filter((_, i) => failures[i] !== null);
  expect(failing).toContain('its task: survives a kill after shop-commit[step-2] (kill point 5)');
  expect(failing.every((n) => /step-2|journal-write/.test(n))).toBe(true);
  expect(failures[names.indexOf(failing[0]!)]).toMatch(/replay: npx killpoint harness --schedule/);
}, 120_000);

test('a schedule the API cannot judge is refused: no kill, or a kill point beyond the run', async () => {
  const { checkScenarioSchedule } = await import('../src/harness/api/check-scenario.js');
  await expect(checkScenarioSchedule({ scenario: DANA, strategy: 'journal' }, [])).rejects.toThrow(/kills: expected kill points/);
  await expect(checkScenarioSchedule({ scenario: DANA, strategy: 'journal' }, [99_999])).rejects.toThrow(/kill point 99999 is beyond the run: life 1 ran to its end after 73 events/);
});
