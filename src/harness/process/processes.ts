// Bookkeeping of the real tier's children, temp folders and open sessions, so that none outlives
// the parent: every child is awaited (reaped) by whoever spawned it, and while any run is in
// flight or a session of a process engine is open, SIGINT and SIGTERM to the parent first kill the
// live children, close the open sessions, wait until the children are reaped and the sessions
// closed, remove the temp folders, then let the signal do what it would have done. A plain exit
// closes the sessions left open and removes leftover folders too (an exit cannot wait: what a
// session's close does at once is done, and its folders are among the held ones).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Live children, each with the promise that settles once it is reaped. */
const liveChildren = new Map<ChildProcess, Promise<unknown>>();
const liveDirs = new Set<string>();
/** The open sessions of process engines, each by its close. */
const openSessions = new Set<() => unknown>();
let inFlight = 0;
let spawnListener: ((pid: number) => void) | null = null;
/** Set by SIGINT/SIGTERM: from then on no child is started, so none can outlive the parent. */
let interrupted = false;

/** How long an interrupted parent waits for its killed children to be reaped. */
const REAP_WAIT_MS = 5_000;

function removeDirs(): void {
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
}

/**
 * Closes every open session, best effort: what a close does at once is done now; the closes that
 * go on are handed back, their errors dropped (an interrupted parent reports no verdict anyway).
 */
function closeSessions(): Promise<unknown>[] {
  const closing: Promise<unknown>[] = [];
  for (const close of [...openSessions]) {
    try {
      const done = close();
      if (done instanceof Promise) closing.push(done.catch(() => undefined));
    } catch {
      // Best effort: its folders are held, and removed with the others.
    }
  }
  openSessions.clear();
  return closing;
}

function onExit(): void {
  closeSessions();
  removeDirs();
}

/**
 * What a run waiting on a child gets once the parent is interrupted (Ctrl-C): not a verdict on the
 * agent, whose life was cut short by us. Commands print nothing more for it; the parent then ends
 * by the signal it got (a shell reads 130 for SIGINT).
 */
export class Interrupted extends Error {
  constructor(what: string) {
    super(`interrupted: ${what}`);
    this.name = 'Interrupted';
  }
}

function onSignal(signal: NodeJS.Signals): void {
  interrupted = true;
  removeHandlers();
  const children = liveChildren.size;
  const reaped = [...liveChildren].map(([child, closed]) => {
    killGroup(child);
    return closed;
  });
  const closing = closeSessions();
  process.stderr.write(`\nkillpoint: interrupted (${signal}): ${children === 1 ? 'the running child was' : `${children} running children were`} killed and the run's temp folders removed; no verdict was reached\n`);
  const timeout = new Promise((resolveTimeout) => setTimeout(resolveTimeout, REAP_WAIT_MS).unref());
  void Promise.race([Promise.allSettled([...reaped, ...closing]), timeout]).then(() => {
    removeDirs();
    process.kill(process.pid, signal);
  });
}

/**
 * Kills a child and everything it started: each child leads a process group of its own, so a
 * grandchild left behind (holding the child's stderr open, say) dies with it.
 */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL'); // the group is gone already; the child may not be
  }
}

function installHandlers(): void {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', onExit);
}

function removeHandlers(): void {
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('exit', onExit);
}

/**
 * A fresh temp folder, kept until `release()`; an interrupted or exiting parent removes it too.
 * For what outlives one run (the durable states an exploration keeps, src/harness/process/process-lives.ts).
 */
export function heldTempDir(prefix: string): { dir: string; release(): void } {
  if (inFlight++ === 0) installHandlers();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  liveDirs.add(dir);
  let released = false;
  return {
    dir,
    release: () => {
      if (released) return;
      released = true;
      rmSync(dir, { recursive: true, force: true });
      liveDirs.delete(dir);
      if (--inFlight === 0) removeHandlers();
    },
  };
}

/**
 * Holds an open session of a process engine until `release()`: an interrupted or exiting parent
 * calls `close` (src/harness/process/process-lives.ts: processSession). A close that must wait (a
 * warm pool drained, rows deleted outside the folders) is awaited by an interrupted parent as long
 * as it waits for its children; the session's folders are held temp folders, removed either way.
 */
export function heldSession(close: () => unknown): { release(): void } {
  if (inFlight++ === 0) installHandlers();
  openSessions.add(close);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      openSessions.delete(close);
      if (--inFlight === 0) removeHandlers();
    },
  };
}

/** Runs `work` in a fresh temp folder that is removed afterwards, whatever happens. */
export async function withTempDir<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const held = heldTempDir(prefix);
  try {
    return await work(held.dir);
  } finally {
    held.release();
  }
}

/** A child that did not end within its time: killed, and bad input of whoever runs it. */
export class LifeTimedOut extends Error {
  constructor(command: string, timeoutMs: number) {
    super(`${command}: a life did not end within ${Math.round(timeoutMs / 1000)} s; it was killed`);
    this.name = 'LifeTimedOut';
  }
}

/** A life of a bundled task takes well under a second; one that runs this long is hung. */
export const DEFAULT_LIFE_TIMEOUT_MS = 120_000;

/**
 * The time a process engine's life may take: the seconds in `variable` when it holds a positive
 * number (a shorter limit for a test, a longer one for a slow machine), else the default.
 */
export function lifeTimeoutFrom(variable: string): number {
  const raw = process.env[variable];
  const seconds = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_LIFE_TIMEOUT_MS;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Starts a child and waits for it to end; its stderr is kept for error messages. */
export function runChild(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string, timeoutMs?: number): Promise<ChildExit> {
  if (interrupted) return Promise.reject(new Interrupted(`not starting ${command}`));
  const started = startChild(command, args, env, { cwd, stdin: 'ignore' });
  spawnListener?.(started.pid);
  return started.awaitEnd(timeoutMs);
}

/**
 * A child started and watched: it is in the live children from the start (an interrupt kills it
 * even before its life begins), its stderr is kept. `awaitEnd` starts its time limit and settles
 * once it is reaped. A warm child (src/harness/process/warm-pool.ts) is started long before it is given a
 * life, so its time starts only then; it is told it has a life by `announce`.
 */
export interface StartedChild {
  pid: number;
  stdin: NodeJS.WritableStream | null;
  /** Whether it has ended already (a warm child that died before being given a life). */
  readonly ended: boolean;
  awaitEnd(timeoutMs?: number): Promise<ChildExit>;
  kill(): void;
}

export function startChild(command: string, args: string[], env: NodeJS.ProcessEnv, options: { cwd?: string; stdin: 'ignore' | 'pipe' }): StartedChild {
  // detached: the child leads a process group of its own (see killGroup).
  const child = spawn(command, args, { env, cwd: options.cwd, stdio: [options.stdin, 'ignore', 'pipe'], detached: true });
  let reaped!: () => void;
  liveChildren.set(child, new Promise<void>((r) => (reaped = r)));
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    if (stderr.length < 20_000) stderr += chunk;
  });
  // A child that died before reading its stdin makes writing to it fail: its exit says why.
  child.stdin?.on('error', () => {});
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  let waiter: { timeoutMs?: number; resolve(exit: ChildExit): void; reject(error: Error): void } | null = null;
  let outcome: { exit?: ChildExit; error?: Error } | null = null;
  const settle = (): void => {
    if (waiter === null || outcome === null) return;
    if (outcome.error !== undefined) waiter.reject(outcome.error);
    else if (interrupted) waiter.reject(new Interrupted(`${command} was killed`));
    else if (timedOut) waiter.reject(new LifeTimedOut(command, waiter.timeoutMs!));
    else waiter.resolve(outcome.exit!);
  };
  child.on('error', (error) => {
    if (ended) return;
    ended = true;
    if (timer !== undefined) clearTimeout(timer);
    liveChildren.delete(child);
    reaped();
    outcome = { error };
    settle();
  });
  // When the life's process is gone, whatever it left running is part of it and dies too; only
  // then can its stderr close.
  child.on('exit', () => killGroup(child));
  // 'close' comes after the exit and the end of stderr: the child is reaped and its output read.
  child.on('close', (code, signal) => {
    if (ended) return;
    ended = true;
    if (timer !== undefined) clearTimeout(timer);
    liveChildren.delete(child);
    reaped();
    outcome = { exit: { code, signal, stderr } };
    settle();
  });
  return {
    pid: child.pid ?? -1,
    stdin: child.stdin,
    get ended() {
      return ended;
    },
    awaitEnd: (timeoutMs) =>
      new Promise<ChildExit>((resolve, reject) => {
        waiter = { timeoutMs, resolve, reject };
        // A life that never ends would hang the whole check: past its time it is killed and reported.
        if (timeoutMs !== undefined && !ended) {
          timer = setTimeout(() => {
            timedOut = true;
            killGroup(child);
          }, timeoutMs);
        }
        settle();
      }),
    kill: () => killGroup(child),
  };
}

/** Tells the spawn listener (tests) that a child started earlier has been given a life. */
export function announceChild(pid: number): void {
  spawnListener?.(pid);
}

/** Whether the parent was interrupted (no child may be started or given a life after that). */
export function wasInterrupted(): boolean {
  return interrupted;
}

/** How many children are running now (for tests that check none is left). */
export function liveChildCount(): number {
  return liveChildren.size;
}

/**
 * Calls `listener` with the pid of every child given a life from now on (for tests; null to
 * stop): a child started for its life, or a warm child when it is handed one (a warm child never
 * handed a life is not reported; src/harness/process/warm-pool.ts counts those).
 */
export function onChildSpawned(listener: ((pid: number) => void) | null): void {
  spawnListener = listener;
}
