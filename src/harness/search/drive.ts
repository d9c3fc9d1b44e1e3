// The one drive of the search, whatever the system under test answers. A plan (plan.ts: kill
// schedules to run; life-plan.ts: lives to run from durable states) is a generator that asks for
// a batch and is handed the answers, in the order it asked. The drive loops synchronously while
// the answers are plain values, so an in-memory engine (thousands of runs a second) costs no
// promise and no microtask per run or per life. The first answer that is a promise turns the rest
// of its batch into a bounded pool (`concurrency` in flight, processes side by side) and the drive
// into a promise; the batches after it run the same way, again synchronously as long as they can.
//
// So the drive answers a plain value when every answer was one, and a promise as soon as one was
// not (a maybe-promise). Callers with a system typed in process (InProcessSystem, such as the
// scripted engine's) get the plain value by type (Answer in engine.ts), and no promise is made
// for an in-memory exploration at all; callers with any other system await what they get. The
// order in which a batch's answers settle never changes what a plan computes.

import { isPromise, type MaybePromise } from '../maybe-promise.js';
import { inPool } from '../process/pool.js';

export interface DriveOptions {
  /** Answers in flight at once, once they are promises (processes of one batch side by side). Default 1. */
  concurrency?: number;
  /**
   * A progress line for work that waits: told of a batch's size once one of its answers is a
   * promise, then of each of its answers in, then of its end. Never called for a batch answered
   * at once (an in-memory engine's).
   */
  progress?: (batchSize: number) => { tick(): void; end(): void };
}

/** Runs a plan to its end, answering each of its asks with `answer`. */
export function drive<A, R, T>(plan: Generator<A[], T, R[]>, answer: (ask: A) => MaybePromise<R>, options: DriveOptions = {}): MaybePromise<T> {
  return driveFrom(plan, plan.next([]), answer, options);
}

function driveFrom<A, R, T>(plan: Generator<A[], T, R[]>, step: IteratorResult<A[], T>, answer: (ask: A) => MaybePromise<R>, options: DriveOptions): MaybePromise<T> {
  while (!step.done) {
    const answers = answerBatch(step.value, answer, options);
    if (isPromise(answers)) return answers.then((settled) => driveFrom(plan, plan.next(settled), answer, options));
    step = plan.next(answers);
  }
  return step.value;
}

/** A batch's answers, in the order asked: at once while they are plain, pooled from the first promise on. */
function answerBatch<A, R>(asks: readonly A[], answer: (ask: A) => MaybePromise<R>, options: DriveOptions): MaybePromise<R[]> {
  const answers: R[] = [];
  for (let i = 0; i < asks.length; i++) {
    const first = answer(asks[i]!);
    if (isPromise(first)) return pooledFrom(asks, i, first, answers, answer, options);
    answers.push(first);
  }
  return answers;
}

/**
 * The rest of a batch once answer `from` is a promise: at most `concurrency` in flight (that one
 * among them); when one fails, no new one starts and the earliest failing answer's error is
 * thrown once the others under way have settled (inPool).
 */
async function pooledFrom<A, R>(asks: readonly A[], from: number, first: Promise<R>, answers: R[], answer: (ask: A) => MaybePromise<R>, options: DriveOptions): Promise<R[]> {
  const progress = options.progress?.(asks.length);
  for (let i = 0; i < from; i++) progress?.tick();
  const indices = Array.from({ length: asks.length - from }, (_, i) => from + i);
  const rest = await inPool(indices, options.concurrency ?? 1, async (i) => {
    const settled = await (i === from ? first : answer(asks[i]!));
    progress?.tick();
    return settled;
  });
  progress?.end();
  for (const settled of rest) answers.push(settled);
  return answers;
}
