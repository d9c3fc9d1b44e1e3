// How long a life may run before it is taken to hang, written once for every engine and tier. A
// fixed two minutes cost an agent whose recoveries all hang (a lock its killed life left) two
// minutes per kill point, forty minutes for forty events, before any verdict. So the limit follows
// the run never killed: a session times the lives of its runs never killed (they come first: every
// kill point is judged against one), and from then on a life may take LIFE_TIMEOUT_FACTOR times the
// longest of them plus LIFE_TIMEOUT_MARGIN_MS. Before one is timed, or outside a session, a life
// has the fixed default. A limit set by its caller (a variable, --life-timeout, an API option)
// stands as given.
//
// The session's times are held in an AsyncLocalStorage opened by withSession (session.ts), so that
// every engine's tier reads the limit of the session it runs in the same way, whatever runs its
// lives (whole runs, lives from saved states, threads, warm children), and two sessions at once
// (a differential check) keep their own.

import { AsyncLocalStorage } from 'node:async_hooks';

/** The limit of a life before anything is timed (a run never killed): a life of a bundled task takes well under a second; one that runs this long is hung. */
export const DEFAULT_LIFE_TIMEOUT_MS = 120_000;

/**
 * A recovery redoes at most what the run never killed did, plus its own start: ten times the
 * longest life never killed leaves room for a machine several times busier than when it was timed.
 */
export const LIFE_TIMEOUT_FACTOR = 10;

/** Added to the factor's share, for what a short life's time says little of (a process's start, a busy core). */
export const LIFE_TIMEOUT_MARGIN_MS = 5_000;

/** The limit of a life in a session whose longest life never killed took `longestNeverKilledMs`, in whole seconds (as reports print it). */
export function adaptiveLifeTimeoutMs(longestNeverKilledMs: number): number {
  return Math.ceil((LIFE_TIMEOUT_FACTOR * longestNeverKilledMs + LIFE_TIMEOUT_MARGIN_MS) / 1000) * 1000;
}

/** The times of a session's lives never killed. */
class NeverKilledTimes {
  longestMs: number | null = null;

  note(ms: number): void {
    this.longestMs = Math.max(this.longestMs ?? 0, ms);
  }
}

const sessionTimes = new AsyncLocalStorage<NeverKilledTimes>();

/** Runs `body` (a session's work) with times of its own: the lives it runs follow its runs never killed. */
export function withLifeTimes<R>(body: () => R): R {
  return sessionTimes.run(new NeverKilledTimes(), body);
}

/** Runs one life of a run never killed and notes its wall time in the session's (the limit of its later lives follows it). */
export async function timedNeverKilled<T>(life: () => Promise<T>): Promise<T> {
  const startedMs = performance.now();
  const ended = await life();
  sessionTimes.getStore()?.note(performance.now() - startedMs);
  return ended;
}

/** The limit of a life started now, when its caller set none: adaptive once the session has timed a life never killed, else the default. */
export function sessionLifeTimeoutMs(): number {
  const longest = sessionTimes.getStore()?.longestMs ?? null;
  return longest === null ? DEFAULT_LIFE_TIMEOUT_MS : adaptiveLifeTimeoutMs(longest);
}

/**
 * The time a process engine's life may take: the seconds in `variable` when it holds a positive
 * number (a shorter limit for a test, a longer one for a slow machine), else the session's limit
 * (sessionLifeTimeoutMs).
 */
export function lifeTimeoutFrom(variable: string): number {
  const raw = process.env[variable];
  const seconds = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : sessionLifeTimeoutMs();
}
