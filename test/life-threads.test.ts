// In-process lives run on a pool of threads (src/harness/in-process/life-threads.ts): as many at
// once as the pool has threads, each thread one life at a time; a life's error arrives as the class
// the harness judges by; a life that never yields its thread is given up at its limit as a hung
// process is, and the lives after it still run; a thread whose life asks to retire it runs no
// other (a fresh one takes its place when the next life asks, not before); an idle pool keeps
// nothing running.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SystemInputError } from '../src/harness/engine.js';
import { LifeThreads, lifeThreadCount, LIFE_THREADS_VARIABLE } from '../src/harness/in-process/life-threads.js';
import { LifeTimedOut } from '../src/harness/process/processes.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const SCRIPT = join(PROJECT_ROOT, 'test', 'fixtures', 'threads', 'test-thread.mjs');
const job = (what: string, extra: Record<string, unknown> = {}) => ({ what, timeoutMs: 2_000, ...extra });

describe('a pool of threads of lives', () => {
  it('runs as many lives at once as it has threads, and reuses them', async () => {
    const pool = new LifeThreads(SCRIPT, 2);
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((what) => pool.run<{ what: string; threadId: number }>(job(what, { waitMs: 200 }))));
    expect(answers.map((a) => a.what)).toEqual(['a', 'b', 'c', 'd']);
    expect(new Set(answers.map((a) => a.threadId)).size).toBe(2);
    expect(pool.started).toBe(2);
  });

  it("hands on a life's error as the class the harness knows: bad input stays bad input, anything else keeps its name and stack", async () => {
    const pool = new LifeThreads(SCRIPT, 1);
    const bad = await pool.run(job('T01 life 2', { mode: 'bad input' })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(SystemInputError);
    expect((bad as Error).message).toBe('T01 life 2: the life cannot run on its durable state');
    const crashed = await pool.run(job('T01 life 3', { mode: 'throws' })).catch((e: unknown) => e);
    expect(crashed).not.toBeInstanceOf(SystemInputError);
    expect(crashed).toMatchObject({ name: 'TypeError', message: 'x is not a function' });
    expect((crashed as Error).stack).toContain('at the life');
  });

  it('hands on what a life says before it answers, in the order said and all of it before the answer, to that life\'s listener only', async () => {
    const pool = new LifeThreads(SCRIPT, 1);
    const heard: string[] = [];
    const first = pool.run<{ what: string }, { what: string; step: number }>(job('T01 life 1', { mode: 'progress' }), (p) => heard.push(`${p.what} ${p.step}`)).then((a) => heard.push(`${a.what} answered`));
    const second = pool.run<{ what: string }, { what: string; step: number }>(job('T01 life 2', { mode: 'progress' }), (p) => heard.push(`${p.what} ${p.step} (second)`)).then((a) => heard.push(`${a.what} answered`));
    await Promise.all([first, second]);
    expect(heard).toEqual(['T01 life 1 1', 'T01 life 1 2', 'T01 life 1 3', 'T01 life 1 answered', 'T01 life 2 1 (second)', 'T01 life 2 2 (second)', 'T01 life 2 3 (second)', 'T01 life 2 answered']);
  });

  it('refuses a job that is not data (it cannot cross to the thread) at once, and serves the next one', async () => {
    const pool = new LifeThreads(SCRIPT, 1);
    await expect(pool.run(job('T01 life 1', { callback: () => undefined }))).rejects.toThrow(/could not be cloned/);
    expect((await pool.run<{ what: string }>(job('T01 life 2'))).what).toBe('T01 life 2');
  });

  it('gives up a life that never yields its thread at its limit, reported hung as a process would be, and serves the next life on a fresh thread', async () => {
    const pool = new LifeThreads(SCRIPT, 1);
    const spun = pool.run(job('T01 life 1', { mode: 'spins', timeoutMs: 100 })).catch((e: unknown) => e);
    const next = pool.run<{ what: string }>(job('T01 life 2'));
    const hung = await spun;
    expect(hung).toBeInstanceOf(LifeTimedOut);
    expect((hung as Error).message).toMatch(/^T01 life 1: a life did not end within 0 s; it was killed/);
    expect((await next).what).toBe('T01 life 2');
    expect(pool.started).toBe(2);
  }, 60_000);

  it('runs nothing more on a thread whose life asks to retire it: the next life runs on a fresh thread, started only when that life asks', async () => {
    const pool = new LifeThreads(SCRIPT, 1);
    const first = await pool.run<{ threadId: number }>(job('T01 life 1', { mode: 'retire' }));
    // No life waits: nothing is started to wait for one (a thread loads an engine's bundle).
    expect(pool.started).toBe(1);
    const second = await pool.run<{ threadId: number }>(job('T01 life 2'));
    const third = await pool.run<{ threadId: number }>(job('T01 life 3'));
    expect(second.threadId).not.toBe(first.threadId);
    expect(third.threadId).toBe(second.threadId);
    expect(pool.started).toBe(2);
  });

  it('keeps nothing running once idle: a process whose lives are done exits by itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-threads-'));
    try {
      const script = join(dir, 'idle-pool.mts');
      writeFileSync(
        script,
        `import { LifeThreads } from ${JSON.stringify(join(PROJECT_ROOT, 'src', 'harness', 'in-process', 'life-threads.ts'))};
const pool = new LifeThreads(${JSON.stringify(SCRIPT)}, 2);
console.log((await Promise.all([pool.run({ what: 'a', timeoutMs: 2000 }), pool.run({ what: 'b', timeoutMs: 2000 })])).map((a) => a.what).join(' '));`,
      );
      const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('a b');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe(`${LIFE_THREADS_VARIABLE}`, () => {
  const saved = process.env[LIFE_THREADS_VARIABLE];
  afterEach(() => {
    if (saved === undefined) delete process.env[LIFE_THREADS_VARIABLE];
    else process.env[LIFE_THREADS_VARIABLE] = saved;
  });

  it('sets the number of threads (0: lives on killpoint\'s own thread); anything else but a whole number is refused, naming the variable', () => {
    process.env[LIFE_THREADS_VARIABLE] = '0';
    expect(lifeThreadCount()).toBe(0);
    process.env[LIFE_THREADS_VARIABLE] = '3';
    expect(lifeThreadCount()).toBe(3);
    process.env[LIFE_THREADS_VARIABLE] = 'two';
    expect(() => lifeThreadCount()).toThrow(new SystemInputError(`${LIFE_THREADS_VARIABLE}: expected a whole number >= 0 (0 runs in-process lives on killpoint's own thread), got "two"`));
  });
});
