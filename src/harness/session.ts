// Holding a session (engine.ts: Session): a system opens one on a scenario, and whoever opened it
// closes it, on success and on error. withSession does both around a body that may answer at once
// or with a promise: a session of an in-process system answers plain values, and withSession then
// answers the body's plain value, no promise made (andFinally); otherwise it answers once the body
// and the close have settled. The search opens one session per exploration with it; runSchedule is
// a session for one run, for tests and one-off callers.

import type { RunOutcome, Schedule } from './check/outcome.js';
import type { Scenario } from '../model/scenario.js';
import type { Answer, InProcessSession, InProcessSystem, Session, SystemUnderTest } from './engine.js';
import { andFinally, type MaybePromise } from './maybe-promise.js';

/** The session a system opens: one that answers at once for a system typed in process. */
export type SessionOf<S extends SystemUnderTest> = S extends InProcessSystem ? InProcessSession : Session;

/**
 * What withSession answers for a body that answers R: R itself for a system typed in process (its
 * session closes at once), else R's value or a promise of it (a session may close with a promise).
 */
export type SessionAnswer<S extends SystemUnderTest, R> = S extends InProcessSystem ? R : MaybePromise<Awaited<R>>;

/**
 * Opens a session of `system` on `scenario`, runs `body` with it and closes it however the body
 * ends (its error stands once the session is closed). The body's plain value stays plain when the
 * close answers at once; else the answer is a promise, settled once the session is closed.
 */
export function withSession<S extends SystemUnderTest, R>(system: S, scenario: Scenario, body: (session: SessionOf<S>) => R): SessionAnswer<S, R> {
  const session = system.open(scenario) as SessionOf<S>;
  return andFinally(() => body(session) as MaybePromise<unknown>, () => session.close()) as SessionAnswer<S, R>;
}

/** One kill schedule run in a session of its own (opened, run, closed): a plain value for a system typed in process. */
export function runSchedule<S extends SystemUnderTest>(system: S, scenario: Scenario, schedule: Schedule): Answer<S, RunOutcome> {
  return withSession(system, scenario, (session): MaybePromise<RunOutcome> => session.run(schedule)) as Answer<S, RunOutcome>;
}
