// In-process lives on worker threads: the explorer asks for lives two at a time (one per core),
// and lives that share one event loop must run one after another (one-at-a-time.ts), so on one
// thread they use one core. Each thread here runs lives of its own one at a time, in its own event
// loop, from its own copy of the engine's bundle: lives on different threads share nothing but the
// file system, and each works in its own folders. A life answers with the same values whichever
// thread ran it (its request and its answer are data: in-process-life.ts's cutInto, not a callback).
//
// A thread is started when a life is asked for and none is idle, up to the pool's size, and kept for
// the next lives; an idle thread never keeps killpoint running. A life's own timer stops a life that
// waits forever; a thread that does not answer even then (a life stuck in a loop that never
// yields) is terminated at a later limit, and the life is reported hung all the same.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { SystemInputError } from '../engine.js';
import { heldThread, LifeTimedOut } from '../process/processes.js';
import { livesBetweenCollections } from './abandoned-lives.js';

/** Set to the number of threads in-process lives run on; 0 runs them on killpoint's own thread. */
export const LIFE_THREADS_VARIABLE = 'KILLPOINT_LIFE_THREADS';

/** How much longer than a life's own limit its thread is given to answer before it is terminated (its own timer answers well within it). */
const threadGraceMs = (timeoutMs: number): number => Math.max(2_000, timeoutMs / 10);

/** How many threads in-process lives run on: one per core unless the variable says otherwise (0: none). */
export function lifeThreadCount(): number {
  const asked = process.env[LIFE_THREADS_VARIABLE];
  if (asked === undefined || asked === '') return availableParallelism();
  const n = Number(asked);
  if (!Number.isInteger(n) || n < 0) throw new SystemInputError(`${LIFE_THREADS_VARIABLE}: expected a whole number >= 0 (0 runs in-process lives on killpoint's own thread), got "${asked}"`);
  return n;
}

/** What a thread is sent: a job, and how many lives between the collector's runs. */
export interface ThreadMessage {
  id: number;
  job: unknown;
  collectEvery: number;
}

/** What a thread answers: the life's value, or its error as data (name, message, stack); `retire`: the thread must run no other life (serve-lives.ts). */
export type ThreadAnswer = ({ id: number; value: unknown } | { id: number; error: { name: string; message: string; stack?: string } }) & { retire?: true };

/** What a thread says of its life before it answers (each copy of the life's state as it is written: in-process-life.ts's onCut). */
export interface ThreadProgress {
  id: number;
  progress: unknown;
}

/** What a thread's lives wrote to stdout, sent as it is written (serve-lives.ts), written to this process's stdout as it comes. */
export interface ThreadOutput {
  output: string;
}

/** What a job says of its life, so that an error that crossed the thread can be named as the life's own. */
export interface ThreadJob {
  /** Names the life in errors. */
  what: string;
  timeoutMs: number;
}

interface Waiting {
  job: ThreadJob;
  onProgress: ((progress: unknown) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

class LifeThread {
  private readonly worker: Worker;
  private current: (Waiting & { id: number; timer: NodeJS.Timeout }) | null = null;
  private nextId = 0;
  dead = false;

  constructor(
    script: string,
    private readonly onIdle: (thread: LifeThread) => void,
  ) {
    // The script is plain JavaScript (a bundle): none of killpoint's own flags, such as a
    // TypeScript loader's hooks, which would only slow every module the thread loads.
    this.worker = new Worker(script, { execArgv: [] });
    this.worker.unref();
    this.worker.on('message', (message: ThreadAnswer | ThreadProgress | ThreadOutput) => {
      if ('output' in message) process.stdout.write(message.output);
      else if ('progress' in message) this.progressed(message);
      else this.answered(message);
    });
    this.worker.on('error', (error) => this.died(error));
    const release = heldThread(this.worker);
    this.worker.on('exit', (code) => {
      release();
      this.died(new Error(`the thread of in-process lives exited (code ${code})`));
    });
  }

  get busy(): boolean {
    return this.current !== null;
  }

  run(waiting: Waiting): void {
    const id = ++this.nextId;
    // real clock: a life's thread that no longer answers must be given up, as a process would be.
    const timer = setTimeout(() => this.hung(), waiting.job.timeoutMs + threadGraceMs(waiting.job.timeoutMs));
    this.current = { ...waiting, id, timer };
    this.worker.ref();
    try {
      // With the collection interval as this thread has it (abandoned-lives.ts): a thread's module state is its own.
      this.worker.postMessage({ id, job: waiting.job, collectEvery: livesBetweenCollections() } satisfies ThreadMessage);
    } catch (error) {
      // A job that is not data (it cannot be copied to the thread) is the caller's mistake, said at once.
      this.settle()?.reject(error);
      queueMicrotask(() => this.onIdle(this));
    }
  }

  private settle(): Waiting | null {
    const current = this.current;
    if (current === null) return null;
    clearTimeout(current.timer);
    this.current = null;
    this.worker.unref();
    return current;
  }

  private progressed({ id, progress }: ThreadProgress): void {
    if (this.current?.id === id) this.current.onProgress?.(progress);
  }

  private answered(answer: ThreadAnswer): void {
    if (this.current?.id !== answer.id) return;
    const { job, resolve, reject } = this.settle()!;
    if (answer.retire) {
      this.dead = true;
      void this.worker.terminate();
    }
    if ('error' in answer) reject(errorFromThread(job, answer.error));
    else resolve(answer.value);
    this.onIdle(this);
  }

  private hung(): void {
    const current = this.settle();
    this.dead = true;
    void this.worker.terminate();
    current?.reject(new LifeTimedOut(current.job.what, current.job.timeoutMs));
    this.onIdle(this);
  }

  private died(error: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.settle()?.reject(error);
    this.onIdle(this);
  }
}

/** The error a life threw on its thread, as the same life on killpoint's own thread would throw it. */
function errorFromThread(job: ThreadJob, error: { name: string; message: string; stack?: string }): Error {
  if (error.name === 'LifeTimedOut') return new LifeTimedOut(job.what, job.timeoutMs);
  const rebuilt = error.name === 'SystemInputError' ? new SystemInputError(error.message) : Object.assign(new Error(error.message), { name: error.name });
  if (error.stack !== undefined) rebuilt.stack = error.stack;
  return rebuilt;
}

/** A pool of threads that run the lives of one thread script (serve-lives.ts on the other side). */
export class LifeThreads {
  private readonly threads: LifeThread[] = [];
  private readonly queue: Waiting[] = [];
  /** How many threads this pool has started (one is started again for a thread given up). */
  started = 0;

  constructor(
    private readonly script: string,
    private readonly size: number,
  ) {}

  /**
   * Runs `job` on the first thread free: its answer, or the error its life ended with. `onProgress`
   * hears what the life says before it answers, in the order said, all of it before the answer.
   */
  run<T, P = unknown>(job: ThreadJob, onProgress?: (progress: P) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ job, onProgress: onProgress as ((progress: unknown) => void) | undefined, resolve: resolve as (value: unknown) => void, reject });
      this.next();
    });
  }

  private next(): void {
    // A thread given up (retired, hung or dead) is replaced when a life asks for it, not before: a
    // thread loads its script (an engine's bundle, about a second of CPU), wasted when no life follows.
    for (let i = this.threads.length - 1; i >= 0; i--) if (this.threads[i]!.dead) this.threads.splice(i, 1);
    while (this.queue.length > 0) {
      let idle = this.threads.find((t) => !t.busy);
      if (idle === undefined && this.threads.length < this.size) idle = this.startThread();
      if (idle === undefined) return;
      idle.run(this.queue.shift()!);
    }
  }

  private startThread(): LifeThread {
    const thread = new LifeThread(this.script, () => this.next());
    this.threads.push(thread);
    this.started += 1;
    return thread;
  }
}

const pools = new Map<string, LifeThreads>();

/**
 * The pool of threads for this script (one per script in a process), or null when lives are to run
 * on this thread. `least`: the fewest threads an engine's lives can run on (one for an engine whose
 * module state must not be killpoint's own).
 */
export function lifeThreadsFor(script: string, least = 0): LifeThreads | null {
  const size = Math.max(lifeThreadCount(), least);
  if (size === 0) return null;
  let pool = pools.get(script);
  if (pool === undefined) {
    pool = new LifeThreads(script, size);
    pools.set(script, pool);
  }
  return pool;
}

/** How many threads of lives this process has started, over every pool (for tests: lives did run on threads). */
export function lifeThreadsStarted(): number {
  return [...pools.values()].reduce((sum, pool) => sum + pool.started, 0);
}
