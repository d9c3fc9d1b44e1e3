// A progress line for long work (an enumeration, a real sweep, an engine sweep): done/total and an
// estimate of the time left, rewritten in place on stderr. Only for a person at a terminal: when
// stderr is a pipe or a file (CI logs, `2> log`) nothing is written, so logs and --json stay as
// they are. KILLPOINT_PROGRESS=1 asks for it anyway, KILLPOINT_PROGRESS=0 never.

import { wantsProgress, type ProgressStream } from '../progress-wanted.js';

export interface Progress {
  /** One more unit done (`what` names it in the line). */
  tick(what?: string): void;
  /** Clears the line for a moment (before something else is written to the terminal); the next tick draws it again. */
  clear(): void;
  /** Clears the line; nothing is written after it. */
  end(): void;
}

const SILENT: Progress = { tick: () => undefined, clear: () => undefined, end: () => undefined };

/** Seconds as a person reads them: 42 s, 3 min 5 s, 1 h 2 min. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * `label: 12/70 (17%), about 40 s left (T03 journal)`. The estimate is the mean time per unit so
 * far times the units left.
 */
export function progressLine(label: string, done: number, total: number, elapsedMs: number, what?: string): string {
  const share = total === 0 ? 100 : Math.floor((done / total) * 100);
  const left = done === 0 ? '' : `, about ${formatDuration(((elapsedMs / done) * (total - done)) / 1000)} left`;
  return `${label}: ${done}/${total} (${share}%)${left}${what ? ` (${what})` : ''}`;
}

export function startProgress(label: string, total: number, options: { enabled?: boolean; stream?: ProgressStream; env?: NodeJS.ProcessEnv; now?: () => number } = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (options.enabled === false || !wantsProgress(stream, options.env)) return SILENT;
  const now = options.now ?? (() => performance.now());
  const started = now();
  let done = 0;
  let ended = false;
  let shown = false;
  return {
    tick(what) {
      if (ended) return;
      done++;
      stream.write(`\r${progressLine(label, done, total, now() - started, what)}\x1b[K`);
      shown = true;
    },
    clear() {
      if (!shown || ended) return;
      stream.write('\r\x1b[K');
      shown = false;
    },
    end() {
      if (ended) return;
      ended = true;
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
