// The thread side of life-threads.ts: a thread's script serves lives one at a time, each job a
// message, each answer a message (the life's value, or its error as data, since an error's class
// does not cross a thread). An engine whose abandoned lives could reach the next life on the same
// thread (module state it cannot fence) keeps a thread only after the lives it says are clean
// (keepThread): after any other, or an error, the answer asks for the thread to be retired.

import { parentPort } from 'node:worker_threads';
import { collectEveryLives, livesBetweenCollections } from './abandoned-lives.js';
import type { ThreadAnswer, ThreadMessage, ThreadOutput, ThreadProgress } from './life-threads.js';

export interface ServeOptions {
  /** The lives after which this thread may run another; without it, every life. */
  keepThread?: (value: unknown) => boolean;
}

/** Answers every job this thread is sent with what `runJob` makes of it; what it reports before that (`progress`) is sent as it comes. */
export function serveLives<J>(runJob: (job: J, progress: (value: unknown) => void) => Promise<unknown>, options: ServeOptions = {}): void {
  const port = parentPort;
  if (port === null) throw new Error('serveLives: not on a worker thread');
  sendStdoutThrough(port);
  port.on('message', ({ id, job, collectEvery }: ThreadMessage) => {
    if (collectEvery !== livesBetweenCollections()) collectEveryLives(collectEvery);
    runJob(job as J, (progress) => port.postMessage({ id, progress } satisfies ThreadProgress)).then(
      (value) => port.postMessage({ id, value, ...(options.keepThread === undefined || options.keepThread(value) ? {} : { retire: true }) } satisfies ThreadAnswer),
      (error: unknown) => {
        const e = error instanceof Error ? error : new Error(String(error));
        port.postMessage({ id, error: { name: e.name, message: e.message, ...(e.stack === undefined ? {} : { stack: e.stack }) }, ...(options.keepThread === undefined ? {} : { retire: true }) } satisfies ThreadAnswer);
      },
    );
  });
}

/**
 * What the lives write to stdout (an agent's logs) goes to killpoint's thread on the port the
 * answers take, so that it is there before the answer of its life: a thread's own stdout reaches
 * the main thread on a channel of its own, at no set moment, after the verdict it belongs to at
 * times (and then into a --json report that must be JSON alone).
 */
function sendStdoutThrough(port: NonNullable<typeof parentPort>): void {
  process.stdout.write = ((chunk: string | Uint8Array, encodingOrDone?: BufferEncoding | ((error?: Error | null) => void), done?: (error?: Error | null) => void): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encodingOrDone === 'string' ? encodingOrDone : 'utf8');
    port.postMessage({ output: text } satisfies ThreadOutput);
    const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
    if (callback !== undefined) queueMicrotask(() => callback(null));
    return true;
  }) as typeof process.stdout.write;
}
