// How long a life may run before it is taken to hang, written once for every engine and tier. A
// fixed two minutes cost an agent whose recoveries all hang (a lock its killed life left) two
// minutes per kill point, forty minutes for forty events, before any verdict. So the limit follows
// the run never killed: each session keeps the times of its lives never killed (LifeTimes; they
// come first: every kill point is judged against one), and from then on a life may take
// LIFE_TIMEOUT_FACTOR times the longest of them plus LIFE_TIMEOUT_MARGIN_MS. Before one is timed, or
// outside a session, a life has the fixed default. A limit set by its caller (a variable,
// --life-timeout, an API option) stands as given.
//
// The session's times reach a life through its request (TierLifeRequest.timeoutMs), set by the
// shared code that starts every life (whole-run.ts, process-lives.ts), rather than through an
// AsyncLocalStorage: on Node 20 one makes every promise of the process slower (about 2x on a
// promise-bound loop), and lives in killpoint's own process are made of promises.

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

/** The times of a session's lives never killed, and the limit they set for its other lives. */
export class LifeTimes {
  private longestMs: number | null = null;

  /** Runs one life of a run never killed and notes its wall time. */
  async timed<T>(life: () => Promise<T>): Promise<T> {
    const startedMs = performance.now();
    const ended = await life();
    this.longestMs = Math.max(this.longestMs ?? 0, performance.now() - startedMs);
    return ended;
  }

  /** The limit of a life started now: adaptive once a life never killed is timed, else the default. */
  limitMs(): number {
    return this.longestMs === null ? DEFAULT_LIFE_TIMEOUT_MS : adaptiveLifeTimeoutMs(this.longestMs);
  }
}

/**
 * The time a process engine's life may take: the seconds in `variable` when it holds a positive
 * number (a shorter limit for a test, a longer one for a slow machine), else the limit its request
 * carries (its session's, LifeTimes), else the default.
 */
export function lifeTimeoutFrom(variable: string, request?: { timeoutMs?: number }): number {
  const raw = process.env[variable];
  const seconds = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : (request?.timeoutMs ?? DEFAULT_LIFE_TIMEOUT_MS);
}
