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
