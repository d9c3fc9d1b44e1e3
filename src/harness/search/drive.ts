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
//
// A plan whose later asks are not worth their cost once one answer is in (a recovery that hung:
// every later one would wait out a full time limit) is driven with a stop rule: its batch stops
// at that answer, and the asks not started by then are answered NOT_RUN, for the plan to count.

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

/**
 * What an ask is answered when its batch stopped before it (StopRule): it was never run. Only a
 * plan run with a stop rule is answered it, and that plan must count it as not explored.
 */
export const NOT_RUN: unique symbol = Symbol('not run');
export type NotRun = typeof NOT_RUN;

/**
 * Asked of each answer as it comes in: true stops its batch there. The asks before it have started
 * already (a batch starts in order) and are awaited, as are those after it already under way; the
 * asks after it not yet started never start and are answered NOT_RUN.
 */
export type StopRule<R> = (answer: R) => boolean;

/** Runs a plan to its end, answering each of its asks with `answer`. */
export function drive<A, R, T>(plan: Generator<A[], T, R[]>, answer: (ask: A) => MaybePromise<R>, options?: DriveOptions): MaybePromise<T>;
/** Runs a plan that may be answered NOT_RUN: each batch stops at the first answer `stop` says so of. */
export function drive<A, R, T>(plan: Generator<A[], T, (R | NotRun)[]>, answer: (ask: A) => MaybePromise<R>, options: DriveOptions, stop: StopRule<R>): MaybePromise<T>;
export function drive<A, R, T>(plan: Generator<A[], T, (R | NotRun)[]>, answer: (ask: A) => MaybePromise<R>, options: DriveOptions = {}, stop?: StopRule<R>): MaybePromise<T> {
  return driveFrom(plan, plan.next([]), answer, options, stop);
}

function driveFrom<A, R, T>(plan: Generator<A[], T, (R | NotRun)[]>, step: IteratorResult<A[], T>, answer: (ask: A) => MaybePromise<R>, options: DriveOptions, stop: StopRule<R> | undefined): MaybePromise<T> {
  while (!step.done) {
    const answers = answerBatch(step.value, answer, options, stop);
    if (isPromise(answers)) return answers.then((settled) => driveFrom(plan, plan.next(settled), answer, options, stop));
    step = plan.next(answers);
  }
  return step.value;
}

/** A batch's answers, in the order asked: at once while they are plain, pooled from the first promise on. */
function answerBatch<A, R>(asks: readonly A[], answer: (ask: A) => MaybePromise<R>, options: DriveOptions, stop: StopRule<R> | undefined): MaybePromise<(R | NotRun)[]> {
  const answers: (R | NotRun)[] = [];
  for (let i = 0; i < asks.length; i++) {
    const first = answer(asks[i]!);
    if (isPromise(first)) return pooledFrom(asks, i, first, answers, answer, options, stop);
    answers.push(first);
    if (stop?.(first)) return [...answers, ...asks.slice(i + 1).map((): NotRun => NOT_RUN)];
  }
  return answers;
}

/**
 * The rest of a batch once answer `from` is a promise: at most `concurrency` in flight (that one
 * among them); when one fails, no new one starts and the earliest failing answer's error is
 * thrown once the others under way have settled (inPool).
 */
async function pooledFrom<A, R>(asks: readonly A[], from: number, first: Promise<R>, answers: (R | NotRun)[], answer: (ask: A) => MaybePromise<R>, options: DriveOptions, stop: StopRule<R> | undefined): Promise<(R | NotRun)[]> {
  const progress = options.progress?.(asks.length);
  for (let i = 0; i < from; i++) progress?.tick();
  const indices = Array.from({ length: asks.length - from }, (_, i) => from + i);
  let stoppedAt = Infinity;
  const rest = await inPool(indices, options.concurrency ?? 1, async (i): Promise<R | NotRun> => {
    if (i > stoppedAt) {
      progress?.tick();
      return NOT_RUN;
    }
    const settled = await (i === from ? first : answer(asks[i]!));
    if (stop?.(settled)) stoppedAt = Math.min(stoppedAt, i);
    progress?.tick();
    return settled;
  });
  progress?.end();
  for (const settled of rest) answers.push(settled);
  return answers;
}
