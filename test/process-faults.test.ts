// Whatever an agent's processes do, killpoint neither hangs nor leaves anything behind: a life's
// time limit holds though a grandchild in a session of its own keeps the life's stderr open; a life
// that exits is over after a short grace though a grandchild still holds its pipes; nothing a life
// started keeps running after it (a daemon in a session of its own included); and when killpoint
// itself is killed with SIGKILL, its lives, their daemons, its private Postgres and its temp folders
// go too, or, for folders nothing was left to remove, go at the next killpoint process's start.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { LifeTimedOut, runChild } from '../src/harness/process/processes.js';
import { checkEveryKillPoint } from '../src/harness/api/every-kill-point.js';
import { hasEnvironmentEntry, pidsNow } from '../src/harness/process/process-tree.js';
import { postgresBinDir } from '../src/harness/engines/dbos/backends/postgres-cluster.js';

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'process-faults');
const SPAWN_DETACHED = join(FIXTURES, 'spawn-detached.mjs');
const AGENT = join(PROJECT_ROOT, 'agents', 'python', 'refund_agent.py');

let tempRoot = '';
beforeAll(() => {
  tempRoot = mkdtempSync(join(tmpdir(), 'process-faults-test-'));
  chmodSync(tempRoot, 0o755); // a private cluster runs as the postgres user, who must reach its folder in here
});
afterAll(() => rmSync(tempRoot, { recursive: true, force: true }));

/** Alive and not a zombie (a killed process whose new parent has not reaped it yet is gone for us). */
/** A process's environment entries, or none once it is gone. */
function environmentOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntil(what: string, holds: () => boolean, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (!holds()) {
    if (Date.now() > until) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let files = 0;
function pidFile(): string {
  return join(tempRoot, `pid-${files++}`);
}

/** The pid a fixture wrote, once it has. */
async function pidIn(file: string): Promise<number> {
  await waitUntil(`a pid in ${file}`, () => existsSync(file) && readFileSync(file, 'utf8').trim() !== '', 10_000);
  return Number(readFileSync(file, 'utf8').trim());
}

/** Live processes whose command line holds `words` (argv joined by NUL). */
function processesRunning(words: string[]): number[] {
  const wanted = `${words.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(wanted);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(alive);
}

// A failed test must leave no process of its own running.
const started: ChildProcess[] = [];
const strays: number[] = [];
afterEach(() => {
  for (const p of started.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

describe("a life's time limit holds whatever its descendants do", () => {
  // Room for the life to start node, start its grandchild and write its pid before its limit on a
  // busy machine (with 1 s, a half-busy run once killed it first, and no pid was ever written).
  const HANG_LIMIT_MS = 4_000;

  it('a grandchild in a session of its own that holds the life\'s stderr: the life is killed at its limit and reported, the grandchild too', async () => {
    const file = pidFile();
    const begun = Date.now();
    const ended = runChild(process.execPath, [SPAWN_DETACHED, file, 'hang', 'holds-stderr'], process.env, undefined, HANG_LIMIT_MS);
    strays.push(await pidIn(file));
    await expect(ended).rejects.toThrow(LifeTimedOut);
    expect(Date.now() - begun).toBeLessThan(HANG_LIMIT_MS + 5_000);
    await waitUntil('the grandchild is killed', () => !alive(strays[0]!), 2_000);
  }, 20_000);

  it('the same grandchild with nothing of the life\'s environment: found under the life while it is alive', async () => {
    const file = pidFile();
    const ended = runChild(process.execPath, [SPAWN_DETACHED, file, 'hang', 'holds-stderr', 'scrub-env'], process.env, undefined, HANG_LIMIT_MS);
    strays.push(await pidIn(file));
    await expect(ended).rejects.toThrow(LifeTimedOut);
    await waitUntil('the grandchild is killed', () => !alive(strays[0]!), 2_000);
  }, 20_000);

  it('a life that exits while a grandchild holds its stderr: its end is reported after a short grace, the grandchild killed', async () => {
    const file = pidFile();
    const begun = Date.now();
    const ended = runChild(process.execPath, [SPAWN_DETACHED, file, 'exit', 'holds-stderr'], process.env, undefined, 60_000);
    strays.push(await pidIn(file));
    expect(await ended).toMatchObject({ code: 0, signal: null });
    expect(Date.now() - begun).toBeLessThan(6_000);
    await waitUntil('the grandchild is killed', () => !alive(strays[0]!), 2_000);
  }, 20_000);
});

describe('nothing a life started outlives it', () => {
  it('a daemon in a session of its own, holding none of its pipes, is killed when the life ends', async () => {
    const file = pidFile();
    const ended = runChild(process.execPath, [SPAWN_DETACHED, file, 'exit', 'quiet'], process.env, undefined, 60_000);
    strays.push(await pidIn(file));
    expect((await ended).code).toBe(0);
    await waitUntil('the daemon is killed', () => !alive(strays[0]!), 2_000);
  }, 20_000);

  it('a daemon that is still starting (between setsid and its program) when its life ends is found by its tree id, life after life', async () => {
    // Read in the middle of exec, a process's environment is empty for a moment: about one such
    // daemon in twenty was taken for a stranger (and left running) before the read waited for the exec.
    const missed: string[] = [];
    for (let life = 0; life < 150; life++) {
      const entry = `KILLPOINT_TEST_TREE=${process.pid}.${life}`;
      const before = new Set(pidsNow());
      const shell = spawn('sh', ['-c', 'setsid sleep 30 </dev/null >/dev/null 2>&1 & exec true'], { env: { ...process.env, KILLPOINT_TEST_TREE: `${process.pid}.${life}` }, stdio: 'ignore' });
      await new Promise((r) => shell.on('exit', r));
      const started = pidsNow().filter((pid) => !before.has(pid));
      const found = started.filter((pid) => hasEnvironmentEntry(pid, entry, 'whole'));
      await new Promise((r) => setTimeout(r, 20)); // every exec is done by now
      // Other test files start (and end) processes meanwhile: one may be gone by the time it is read.
      const carrying = started.filter((pid) => environmentOf(pid).includes(entry));
      strays.push(...carrying);
      for (const pid of carrying) if (!found.includes(pid)) missed.push(`life ${life}: ${pid}`);
      for (const pid of carrying) process.kill(pid, 'SIGKILL');
    }
    expect(missed).toEqual([]);
  }, 60_000);

  it('a harness agent that starts a daemon in every life leaves none running after a whole check', async () => {
    const mark = `${process.pid}.${Date.now() % 100_000}`; // sleep's argument, to find the daemons by
    const agent = `setsid sleep ${mark} </dev/null >/dev/null 2>&1 & exec python3 '${AGENT}' --keys`;
    try {
      const verdicts = await checkEveryKillPoint({ name: 'agent with a daemon', command: 'sh', args: ['-c', agent] });
      expect(verdicts.length).toBeGreaterThan(10);
      // SIGKILL is delivered, not awaited: a daemon killed as the last life ended may take a moment
      // to die on a busy machine (one was seen alive right after the check, in a clean CI run). One
      // never killed sleeps for hours.
      await waitUntil('no daemon of this check left running', () => processesRunning(['sleep', mark]).length === 0, 2_000);
    } finally {
      strays.push(...processesRunning(['sleep', mark]));
    }
  }, 60_000);
});

/** Starts a killpoint process from a fixture, in the test's temp root; resolves with its first line matching `line`. */
function startParent(fixture: string, args: string[], line: RegExp): { parent: ChildProcess; first: Promise<RegExpExecArray> } {
  const parent = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, fixture), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, TMPDIR: tempRoot },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(parent);
  let stderr = '';
  parent.stderr!.setEncoding('utf8').on('data', (t: string) => void (stderr += t));
  const first = new Promise<RegExpExecArray>((resolveLine, reject) => {
    let stdout = '';
    parent.stdout!.setEncoding('utf8').on('data', (t: string) => {
      stdout += t;
      const m = line.exec(stdout);
      if (m) resolveLine(m);
    });
    parent.on('exit', (code, signal) => reject(new Error(`${fixture} ended (${code ?? signal}) before printing ${line}: ${stdout}${stderr}`)));
  });
  return { parent, first };
}

async function killHard(parent: ChildProcess): Promise<void> {
  const gone = new Promise((r) => parent.on('exit', r));
  parent.kill('SIGKILL');
  await gone;
}

/** The killpoint temp folders in the test's temp root. */
function killpointDirs(): string[] {
  return readdirSync(tempRoot).filter((name) => name.startsWith('killpoint-'));
}

describe('killpoint killed with SIGKILL leaves nothing behind', () => {
  it("its life, the life's daemon and the run's temp folder go with it", async () => {
    const file = pidFile();
    const { parent, first } = startParent('killed-parent.ts', [file], /child (\d+)/);
    const life = Number((await first)[1]);
    const daemon = await pidIn(file);
    strays.push(life, daemon);
    expect(alive(life)).toBe(true);
    expect(killpointDirs().filter((n) => n.startsWith('killpoint-external-'))).toHaveLength(1);
    await killHard(parent);
    await waitUntil('the life and its daemon are killed', () => !alive(life) && !alive(daemon), 5_000);
    await waitUntil('the temp folder is removed', () => killpointDirs().every((n) => !n.startsWith('killpoint-external-')), 5_000);
  }, 30_000);

  it('the next killpoint process removes the temp folders of those that no longer exist, and keeps those of live ones', async () => {
    const live = startParent('holds-temp-dir.ts', [], /dir (\S+) watcher/);
    const killed = startParent('holds-temp-dir.ts', [], /dir (\S+) watcher (\d+)/);
    const liveDir = (await live.first)[1]!;
    const [, killedDir, killedWatcher] = (await killed.first) as unknown as [string, string, string];
    process.kill(Number(killedWatcher), 'SIGKILL');
    await killHard(killed.parent);
    expect(existsSync(killedDir)).toBe(true); // its watcher died with it: nothing was left to remove it
    const next = startParent('holds-temp-dir.ts', [], /dir (\S+) watcher/);
    const nextDir = (await next.first)[1]!;
    expect(existsSync(killedDir)).toBe(false);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(nextDir)).toBe(true);
  }, 30_000);

  it.skipIf(postgresBinDir() === null)('its private Postgres cluster stops, and the cluster\'s folder goes', async () => {
    const { parent, first } = startParent('postgres-parent.ts', [], /cluster (\S+)/);
    const dir = (await first)[1]!;
    const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    strays.push(postmaster);
    expect(alive(postmaster)).toBe(true);
    await killHard(parent);
    await waitUntil('the Postgres server is stopped', () => !alive(postmaster), 10_000);
    await waitUntil("the cluster's folder is removed", () => !existsSync(dir), 10_000);
  }, 60_000);
});
