// The seam is real: an engine that is one folder (test/engines/counter) and one registration line
// gets the whole of killpoint: `killpoint check` explores its every kill point, finds its gap,
// shrinks it to the earliest kill, prints the command that replays it, and keeps it as a corpus
// entry that replays.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/harness/cli/main.js';
import { captureConsole } from './helpers.js';
import { engineNames, registerEngine } from '../src/harness/registry.js';
import { counterEngine } from './engines/counter/engine.js';
import { check } from '../src/harness/api/check-module.js';
import { killpointTests, type TestApi } from '../src/vitest/index.js';

registerEngine(counterEngine);

const TASK = 'test/engines/counter/count-once.json';
const saveDir = mkdtempSync(join(tmpdir(), 'killpoint-seam-'));
afterAll(() => rmSync(saveDir, { recursive: true, force: true }));

const out = captureConsole();

describe('a test-only engine behind the seam: a counter with and without a key', () => {
  it('without a key: check finds the gap, at the earliest kill point, and keeps it in the corpus', async () => {
    expect(await main(['check', TASK, '--engine', 'counter', '--strategy', 'no-key', '--save', saveDir])).toBe(1);
    const text = out.text();
    expect(text).toMatch(/COUNT no-key: FAIL \(done twice, shop state differs\)/);
    // Killed right after the service commits and before the task records it: the gap.
    expect(text).toMatch(/1 +[\d.]+ ms +add call_add: shop commit +<-- KILL/);
    expect(text).toMatch(/add counter committed twice/);
    expect(text).toMatch(/replay: npx killpoint check test\/engines\/counter\/count-once\.json --engine counter --strategy no-key --schedule 1$/m);
    expect(readdirSync(saveDir)).toEqual(['count-counter-no-key.json']);
    const entry = JSON.parse(readFileSync(join(saveDir, 'count-counter-no-key.json'), 'utf8'));
    expect(entry).toMatchObject({ engine: 'counter', strategy: 'no-key', schedule: { kills: [1] }, expected: { failed: ['done-twice', 'shop-differs'] } });
  });

  it('the kept entry replays as expected, and so does the printed command', async () => {
    expect(await main(['check', join(saveDir, 'count-counter-no-key.json')])).toBe(0);
    expect(out.text()).toMatch(/replays as expected/);
    out.clear();
    expect(await main(['check', TASK, '--engine', 'counter', '--strategy', 'no-key', '--schedule', '1'])).toBe(1);
    expect(out.text()).toMatch(/FAILS: done twice, shop state differs/);
  });

  it('with a key from the run and the call: every kill point passes', async () => {
    expect(await main(['check', TASK, '--engine', 'counter', '--strategy', 'with-key'])).toBe(0);
    expect(out.text()).toMatch(/COUNT with-key: ok \(every promised check held\)\n +5 schedules of up to 1 kill/);
  });

  it('an engine or system it does not know is bad input, naming what it knows', async () => {
    expect(await main(['check', TASK, '--engine', 'abacus'])).toBe(2);
    expect(out.text()).toMatch(new RegExp(`--engine: expected one of ${engineNames().join(', ')}, got "abacus"`));
    out.clear();
    expect(await main(['check', TASK, '--engine', 'counter', '--strategy', 'journal'])).toBe(2);
    expect(out.text()).toMatch(/--strategy: expected one of no-key, with-key, got "journal"/);
  });
});

describe("a test-only engine's module of a user's own: declared in its folder, named by the CLI, the API and the vitest helper", () => {
  it('the command line takes its option and its own flag, and lists it in the help', async () => {
    expect(await main(['check', '--counter', TASK, '--input', '{}'])).toBe(1);
    expect(out.text()).toMatch(/add counter committed twice/);
    expect(out.text()).toMatch(/replay: npx killpoint check --counter test\/engines\/counter\/count-once\.json --input '\{\}' --schedule 1$/m);
    out.clear();
    expect(await main(['check', '--counter', TASK, '--input', '{}', '--key', 'yes'])).toBe(0);
    out.clear();
    expect(await main(['help', 'check'])).toBe(0);
    expect(out.text()).toMatch(/your own counter task \(test only\): --counter <module\.ts> --input <input\.json> \[--key yes\|no\]/);
  });

  it("its own flag beside another kind of module is bad input naming the module it belongs to", async () => {
    expect(await main(['check', '--dbos', TASK, '--input', '{}', '--key', 'yes'])).toBe(2);
    expect(out.text()).toMatch(/--key: only with --counter/);
  });

  it('check({ engine }) runs it by its name, and an engine that checks no module is refused naming those that do', async () => {
    expect((await check({ engine: 'counter', module: TASK, input: {} })).ok).toBe(false);
    expect((await check({ engine: 'counter', module: TASK, input: {}, key: 'yes' })).ok).toBe(true);
    expect(() => check({ engine: 'scripted', module: TASK, input: {} })).toThrow(/engine: expected one of .*counter.* \(the engines that check a module of your own\), got "scripted"/);
  });

  it('killpointTests takes its field and declares a test that runs it', async () => {
    const tests: { name: string; body: () => Promise<void> }[] = [];
    const api: TestApi = { describe: (_name, body) => body(), test: (name, body) => void tests.push({ name, body }) };
    killpointTests('counter', { counter: TASK, input: {}, key: 'yes' }, api);
    killpointTests('counter unkeyed', { counter: TASK, input: {} }, api);
    expect(tests.map((t) => t.name)).toEqual(['count-once.json: survives every kill point, up to 1 kill (with seed=1)', 'count-once.json: survives every kill point, up to 1 kill (with seed=1)']);
    await tests[0]!.body();
    await expect(tests[1]!.body()).rejects.toThrow(/add counter committed twice/);
  });
});
