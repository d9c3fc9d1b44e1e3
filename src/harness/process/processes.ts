// Bookkeeping of the real tier's children, temp folders and open sessions, so that none outlives
// the parent: every child is awaited (reaped) by whoever spawned it, and while any run is in
// flight or a session of a process engine is open (for the killpoint command: from its start to
// its end, interruptibleUntilExit), SIGINT and SIGTERM to the parent first kill the
// live children, close the open sessions, wait until the children are reaped and the sessions
// closed, remove the temp folders, then let the signal do what it would have done. A plain exit
// closes the sessions left open and removes leftover folders too (an exit cannot wait: what a
// session's close does at once is done, and its folders are among the held ones). A parent killed
// with SIGKILL can do none of this: a watcher does it instead (orphan-watcher.ts), and temp
// folders name their owner, so that the next killpoint process removes those the watcher could not
// (owned-temp-dirs.ts).
//
// A child's end is its process's end, whatever it started: when it exits, or is killed at its time
// limit, everything it started is killed with it (child-tree.ts), and its stderr is read only a
// short while longer, so that a descendant that keeps it open cannot keep its life from ending.

import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { constants } from 'node:os';
import { ChildTree } from './child-tree.js';
import { watchGroup } from './orphan-watcher.js';
import { ownedTempDir, sweepOrphanedTempDirs } from './owned-temp-dirs.js';
import { sayUnanswered, UNANSWERED_LINE_START } from '../traffic/unanswered.js';
import { childWaits, stopShowingWaits, waitEnded, WAITING_LINE_START } from '../traffic/waiting.js';

/** Live children, each with the promise that settles once it is reaped, and how to kill all it started. */
const liveChildren = new Map<ChildProcess, { reaped: Promise<unknown>; killAll(): void }>();
/** Held temp folders. */
const liveDirs = new Set<string>();
/** The open sessions of process engines, each by its close. */
const openSessions = new Set<() => unknown>();
/** Threads of lives (the in-process tier's): an interrupted parent stops them before it removes the folders they write in. */
const liveThreads = new Set<{ terminate(): Promise<unknown> }>();
let inFlight = 0;
/** Whether onSignal is a listener of SIGINT and SIGTERM now. */
let handlersInstalled = false;
/** Bumped by every hold, so that a removal asked for before it does not happen (holdHandlers). */
let holdsSoFar = 0;
let spawnListener: ((pid: number) => void) | null = null;
/** Set by SIGINT/SIGTERM: from then on no child is started, so none can outlive the parent. */
let interrupted = false;

/** How long an interrupted parent waits for its killed children to be reaped. */
const REAP_WAIT_MS = 5_000;

/**
 * Removes the held temp folders as the process ends, and leaves them on the watcher's list
 * (orphan-watcher.ts), which removes them again once the process is gone: an interrupted parent
 * stops its threads of lives first (heldThread), but a plain exit cannot wait for them, and a
 * thread still running writes its copies into its session's folder, making it anew.
 */
function removeDirs(): void {
  for (const dir of liveDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Written to as it went: the watcher removes it.
    }
  }
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
  // A second Ctrl-C while this one cleans up ends the process at once (the watcher then cleans up).
  removeHandlers();
  const children = liveChildren.size;
  const reaped = [...liveChildren.values()].map((child) => {
    child.killAll();
    return child.reaped;
  });
  // A thread of lives stopped first: it would go on writing its copies into its session's folder,
  // making the folder anew once removed.
  const stopped = [...liveThreads].map((thread) => thread.terminate().catch(() => undefined));
  liveThreads.clear();
  const closing = closeSessions();
  stopShowingWaits();
  process.stderr.write(`\nkillpoint: interrupted (${signal}): ${children === 1 ? 'the running child was' : `${children} running children were`} killed and the run's temp folders removed; no verdict was reached\n`);
  // Not unref'd: a command that returns meanwhile must not end the process with its own exit code
  // before the signal does.
  const timeout = new Promise((resolveTimeout) => setTimeout(resolveTimeout, REAP_WAIT_MS));
  void Promise.race([Promise.allSettled([...reaped, ...stopped, ...closing]), timeout]).then(() => {
    removeDirs();
    endBySignal(signal);
  });
}

/**
 * Ends this process by `signal`, as if it had had no handler (a shell reads 130 for SIGINT).
 * Every listener left is removed first: one that stayed (a library's) would catch the signal raised
 * again, and nothing would end the process.
 */
function endBySignal(signal: NodeJS.Signals): void {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  // Unreachable unless the signal is ignored (the default action of SIGINT and SIGTERM ends the process before kill returns).
  process.exit(128 + (constants.signals[signal] ?? 0));
}

function installHandlers(): void {
  handlersInstalled = true;
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', onExit);
}

function removeHandlers(): void {
  handlersInstalled = false;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('exit', onExit);
}

/**
 * One more thing in flight: the handlers are listening from now on. Never again after an interrupt
 * (its cleanup is under way; a second Ctrl-C must end the process at once).
 */
function holdHandlers(): void {
  inFlight++;
  holdsSoFar++;
  if (!handlersInstalled && !interrupted) installHandlers();
}

/**
 * One thing less in flight. When none is left, the handlers stop listening two turns of the event
 * loop later, and only if nothing was held meanwhile. Not at once: a signal that arrived during
 * this turn has been caught but not yet handed to its listener (Node does that when the loop next
 * polls), and a listener removed before then never hears of it. Removed and added again in the
 * same turn (one session closed and the next opened), the signal was lost: the check ran on to its
 * end as if Ctrl-C had not been pressed. Two turns: the loop polls at least once in between.
 */
function letGoOfHandlers(): void {
  if (--inFlight > 0) return;
  const holdsThen = holdsSoFar;
  setImmediate(() =>
    setImmediate(() => {
      if (inFlight === 0 && holdsSoFar === holdsThen && handlersInstalled) removeHandlers();
    }),
  );
}

/**
 * Resolves once the event loop has polled at least once from now: a signal caught before the call
 * has been handed to its listener by then (wasInterrupted tells). For what may be an effect of a
 * Ctrl-C that reached the whole process group (a child or a server of ours ended by it, a pipe to
 * it broken) before it is taken for a failure.
 */
export function afterPendingSignals(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** The signals a terminal or a supervisor sends a whole process group; killpoint sends its children neither. */
const GROUP_SIGNALS: ReadonlySet<NodeJS.Signals | null> = new Set<NodeJS.Signals>(['SIGINT', 'SIGTERM']);

/**
 * For the killpoint command: the handlers listen from now until the process ends, whatever is in
 * flight, so that Ctrl-C ends it with its line in every phase (loading, between two sessions, the
 * minimal search) and no moment is left where one is lost. A listener of a signal does not keep
 * the process running.
 */
export function interruptibleUntilExit(): void {
  holdHandlers();
  process.on('uncaughtException', crashUnlessInterrupted);
}

/**
 * A crash that comes with Ctrl-C is one of its effects (the bundler a build was waiting on, ended
 * by the same Ctrl-C, throws from its own callback): the signal is given its turn first, and then
 * onSignal ends the process. A crash without one ends it as Node would: its stack, exit 1.
 */
function crashUnlessInterrupted(error: unknown): void {
  void afterPendingSignals().then(() => {
    if (interrupted) return;
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

/**
 * A fresh temp folder, kept until `release()`; an interrupted or exiting parent removes it too.
 * For what outlives one run (the durable states an exploration keeps, src/harness/process/process-lives.ts).
 */
export function heldTempDir(prefix: string): { dir: string; release(): void } {
  holdHandlers();
  const owned = ownedTempDir(prefix);
  liveDirs.add(owned.dir);
  let released = false;
  return {
    dir: owned.dir,
    release: () => {
      if (released) return;
      released = true;
      owned.release();
      liveDirs.delete(owned.dir);
      letGoOfHandlers();
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
  holdHandlers();
  openSessions.add(close);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      openSessions.delete(close);
      letGoOfHandlers();
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

/**
 * Holds a thread that runs lives until the returned function is called (when it exits): an
 * interrupted parent terminates it, and waits for that as for its children, before it removes
 * the held folders.
 */
export function heldThread(thread: { terminate(): Promise<unknown> }): () => void {
  liveThreads.add(thread);
  return () => liveThreads.delete(thread);
}

/** A child that did not end within its time: killed, and bad input of whoever runs it. */
export class LifeTimedOut extends Error {
  constructor(command: string, timeoutMs: number) {
    super(`${command}: a life did not end within ${Math.round(timeoutMs / 1000)} s; it was killed`);
    this.name = 'LifeTimedOut';
  }
}


export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Starts a child and waits for it to end; its stderr is kept for error messages. `onStarted` hears its process id. */
export function runChild(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string, timeoutMs?: number, onStarted?: (pid: number) => void): Promise<ChildExit> {
  if (interrupted) return Promise.reject(new Interrupted(`not starting ${command}`));
  const started = startChild(command, args, env, { cwd, stdin: 'ignore' });
  spawnListener?.(started.pid);
  onStarted?.(started.pid);
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
  sweepOrphanedTempDirs();
  return new WatchedChild(command, args, env, options);
}

/**
 * How long a child's stderr is still read once its process has ended: its last lines are in the
 * pipe by then, unless something it started (and we could not find to kill) still holds it open.
 */
const STDERR_AFTER_EXIT_MS = 250;

/** How much of a child's stderr is kept for messages. */
const STDERR_KEPT_CHARS = 20_000;

type Waiter = { timeoutMs?: number; resolve(exit: ChildExit): void; reject(error: Error): void };

/**
 * A child and everything it starts: ended by its process's exit (or by a spawn that failed), never
 * by its pipes' close, which a descendant can put off forever.
 */
class WatchedChild implements StartedChild {
  readonly pid: number;
  readonly stdin: NodeJS.WritableStream | null;
  private readonly child: ChildProcess;
  private readonly tree = new ChildTree();
  private readonly unwatch: () => void;
  private readonly stderrFd: number | undefined;
  private stderr = '';
  private stderrClosed = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private spawnError: Error | null = null;
  private isEnded = false;
  private timedOut = false;
  /** Set once a child killed at its limit has had its time to exit: it is reported as timed out even if it never does. */
  private killGraceOver = false;
  /** Set once a child ended by SIGINT or SIGTERM has waited for this process's own handler (settle). */
  private waitedForSignals = false;
  private reaped!: () => void;
  private waiter: Waiter | null = null;
  private limitTimer: NodeJS.Timeout | undefined;
  private stderrTimer: NodeJS.Timeout | undefined;

  constructor(private readonly command: string, args: string[], env: NodeJS.ProcessEnv, options: { cwd?: string; stdin: 'ignore' | 'pipe' }) {
    // detached: the child leads a process group of its own (see ChildTree).
    this.child = spawn(command, args, { env: this.tree.environment(env), cwd: options.cwd, stdio: [options.stdin, 'ignore', 'pipe'], detached: true });
    this.pid = this.child.pid ?? -1;
    this.stdin = this.child.stdin;
    this.tree.rootedAt(this.child.pid);
    this.unwatch = this.child.pid === undefined ? () => {} : watchGroup(this.child.pid);
    liveChildren.set(this.child, { reaped: new Promise<void>((r) => (this.reaped = r)), killAll: () => this.tree.killAll() });
    this.stderrFd = pipeFd(this.child.stderr);
    this.readStderr();
    // A child that died before reading its stdin makes writing to it fail: its exit says why.
    this.child.stdin?.on('error', () => {});
    this.child.on('error', (error) => this.onSpawnError(error));
    this.child.on('exit', (code, signal) => this.onExit(code, signal));
  }

  get ended(): boolean {
    return this.isEnded;
  }

  awaitEnd(timeoutMs?: number): Promise<ChildExit> {
    return new Promise<ChildExit>((resolve, reject) => {
      this.waiter = { timeoutMs, resolve, reject };
      // A life that never ends would hang the whole check: past its time it is killed and reported.
      if (timeoutMs !== undefined && !this.isEnded) this.limitTimer = setTimeout(() => this.atLimit(), timeoutMs);
      this.settle();
    });
  }

  kill(): void {
    // Once reaped, its pid may be another process's: what it started was killed at its exit.
    if (this.exit === null) this.tree.killAll();
  }

  private readStderr(): void {
    const stderr = this.child.stderr!;
    stderr.setEncoding('utf8');
    let partLine = '';
    stderr.on('data', (chunk: string) => {
      if (this.stderr.length < STDERR_KEPT_CHARS) this.stderr += chunk;
      // A life's lines for the person waiting (an endpoint that did not answer, once; what it waits on) are shown here too.
      const lines = (partLine + chunk).split('\n');
      partLine = lines.pop()!.slice(0, STDERR_KEPT_CHARS);
      for (const line of lines) {
        if (line.startsWith(UNANSWERED_LINE_START)) sayUnanswered(line);
        // Read after its exit, it waits on nothing any more.
        else if (line.startsWith(WAITING_LINE_START) && this.exit === null) childWaits(`child ${this.pid}`, line);
      }
    });
    stderr.on('close', () => {
      this.stderrClosed = true;
      this.finish();
    });
  }

  /** The process is gone (reaped): whatever it left running is part of it and dies too. */
  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    waitEnded(`child ${this.pid}`);
    this.tree.rootExited();
    this.tree.killAll();
    this.unwatch();
    if (this.timedOut) this.stopReading();
    else if (!this.stderrClosed) this.stderrTimer = setTimeout(() => this.giveUpOnStderr(), STDERR_AFTER_EXIT_MS);
    this.finish();
  }

  /** The child could not be started (no such command, say): there is no process to wait for. */
  private onSpawnError(error: Error): void {
    if (this.exit !== null) return;
    this.spawnError = error;
    this.stopReading();
    this.finish();
  }

  /** Its time is up: it is killed with all it started, and its stderr is no longer waited for. */
  private atLimit(): void {
    this.timedOut = true;
    this.tree.killAll();
    this.stopReading();
    // SIGKILL ends a process at once, unless it is stuck in the kernel: the check goes on either way.
    setTimeout(() => {
      this.killGraceOver = true;
      this.settle();
    }, STDERR_AFTER_EXIT_MS).unref();
  }

  /** Something still holds the ended child's stderr: killed if it can be found, and not read any longer. */
  private giveUpOnStderr(): void {
    this.tree.killHoldersOf(this.stderrFd);
    this.stopReading();
  }

  private stopReading(): void {
    this.stderrClosed = true;
    this.child.stderr?.destroy();
    this.child.stdin?.destroy();
  }

  /** Ends the child once its process is gone (or never started) and its stderr read. */
  private finish(): void {
    if (this.isEnded || !this.stderrClosed || (this.exit === null && this.spawnError === null)) return;
    this.isEnded = true;
    clearTimeout(this.limitTimer);
    clearTimeout(this.stderrTimer);
    liveChildren.delete(this.child);
    this.reaped();
    this.settle();
  }

  private settle(): void {
    const waiter = this.waiter;
    if (waiter === null || !(this.isEnded || (this.timedOut && this.killGraceOver))) return;
    // Ended by a signal killpoint never sends it: the Ctrl-C that reached its process group reached
    // this process too. Its handler goes first, so that the life reads as interrupted, not crashed.
    if (!interrupted && !this.waitedForSignals && GROUP_SIGNALS.has(this.exit?.signal ?? null)) {
      this.waitedForSignals = true;
      void afterPendingSignals().then(() => this.settle());
      return;
    }
    this.waiter = null;
    if (this.spawnError !== null) waiter.reject(this.spawnError);
    else if (interrupted) waiter.reject(new Interrupted(`${this.command} was killed`));
    else if (this.timedOut) waiter.reject(new LifeTimedOut(this.command, waiter.timeoutMs!));
    else waiter.resolve({ ...this.exit!, stderr: this.stderr });
  }
}

/** The descriptor of our end of a child's pipe, where Node's stream shows it (to find who else holds the pipe). */
function pipeFd(stream: unknown): number | undefined {
  const fd = (stream as { _handle?: { fd?: unknown } } | null)?._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
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
