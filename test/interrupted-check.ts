// A check interrupted as a terminal's Ctrl-C does: SIGINT to its whole process group (its children
// get it too), at a chosen moment, and what it left. Shared by test/interrupt-checks.test.ts (a
// sample of moments per engine) and bench/interrupt.ts (`npm run interrupt`, the sweep).

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { PROJECT_ROOT } from '../src/model/load.js';
import { tempRoot } from '../src/harness/process/owned-temp-dirs.js';
import { processesNaming } from '../src/harness/process/process-tree.js';
import { TREE_VARIABLE } from '../src/harness/process/owner.js';
import { leftBy } from './helpers.js';

/**
 * When the signal is sent: so long after the start, or so long after the run's first temp folder
 * appears (its first session has begun). In the first tenths of a second Node itself is starting
 * (killpoint's first line has not run): nothing has been started, nothing can say so, and the
 * signal's default action ends it; a moment a second in is while it loads.
 */
export type Moment = { afterStartMs: number } | { afterFirstFolderMs: number };

export interface Interruption {
  moment: string;
  /** The check ended by itself before the moment came: nothing was interrupted. */
  finishedFirst: boolean;
  /** It ended within the limit once signalled. */
  ended: boolean;
  /** From the signal to its exit. */
  endMs: number | null;
  signal: NodeJS.Signals | null;
  status: number | null;
  /** Its stderr has the interrupted line. */
  saidInterrupted: boolean;
  /** Processes and folders it left, once the limit to clean up has passed (its watcher's part included). */
  left: string[];
  stderrTail: string;
}

export function momentName(moment: Moment): string {
  return 'afterStartMs' in moment ? `${moment.afterStartMs} ms after the start` : `${moment.afterFirstFolderMs} ms after its first folder`;
}

/** How long an interrupted check may take to end before it counts as hung. */
export const HUNG_AFTER_MS = 20_000;
/** How long its stderr is still read after its exit. */
const STDERR_AFTER_EXIT_MS = 3_000;
/** How long what it left may take to go (the watcher ends what a killed process could not). */
const CLEANUP_LIMIT_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function firstFolderOf(pid: number): boolean {
  return readdirSync(tempRoot()).some((name) => name.startsWith('killpoint-') && name.includes(`pid${pid}.`));
}

/** What the process `pid` left: leftBy's processes and folders, and its watcher (which names its tree in its command line). */
function everythingLeftBy(pid: number): string[] {
  return [...leftBy(pid), ...processesNaming(`${TREE_VARIABLE}=${pid}.`).map((p) => `watcher ${p}`)];
}

/** Runs `killpoint <args>` in a process group of its own and sends SIGINT to the group at `moment`. */
export async function interruptCheck(args: string[], moment: Moment): Promise<Interruption> {
  const child = spawn(process.execPath, ['bin/killpoint.mjs', ...args], { cwd: PROJECT_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid!;
  let stderr = '';
  child.stdout.resume();
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const run: { exit: { status: number | null; signal: NodeJS.Signals | null; at: number } | null } = { exit: null };
  const exited = new Promise<void>((r) => child.on('exit', (status, signal) => ((run.exit = { status, signal, at: performance.now() }), r()))); // real clock: how long it took to end
  // Its stderr is read to its end, which may come after its exit (a bundler of its own that shares it is given a moment to go).
  const stderrRead = new Promise<void>((r) => child.on('close', () => r()));
  // real clock: the moment is a time in the check's run, as a person's Ctrl-C is.
  const started = performance.now();
  // When the moment's mark was seen (the start, the first folder), and how long after it the signal goes.
  let markSeen: number | null = 'afterStartMs' in moment ? started : null;
  const waitMs = 'afterStartMs' in moment ? moment.afterStartMs : moment.afterFirstFolderMs;
  while (run.exit === null) {
    if (markSeen === null && firstFolderOf(pid)) markSeen = performance.now();
    if (markSeen !== null && performance.now() - markSeen >= waitMs) break;
    await sleep(5);
  }
  const result = { moment: momentName(moment), stderrTail: '' };
  if (run.exit !== null) return { ...result, finishedFirst: true, ended: true, endMs: null, signal: null, status: run.exit.status, saidInterrupted: false, left: everythingLeftBy(pid) };
  const signalled = performance.now();
  process.kill(-pid, 'SIGINT');
  await Promise.race([exited, sleep(HUNG_AFTER_MS)]);
  const end = run.exit as { status: number | null; signal: NodeJS.Signals | null; at: number } | null;
  if (end === null) process.kill(-pid, 'SIGKILL');
  await Promise.race([stderrRead, sleep(STDERR_AFTER_EXIT_MS)]);
  let left = everythingLeftBy(pid);
  for (const until = performance.now() + CLEANUP_LIMIT_MS; left.length > 0 && performance.now() < until; left = everythingLeftBy(pid)) await sleep(100);
  return {
    ...result,
    finishedFirst: false,
    ended: end !== null,
    endMs: end === null ? null : Math.round(end.at - signalled),
    signal: end?.signal ?? null,
    status: end?.status ?? null,
    saidInterrupted: /killpoint: interrupted \(SIGINT\)/.test(stderr),
    left,
    stderrTail: stderr.slice(-600),
  };
}

/** Whether an interrupted check did all it must: ended by SIGINT, said so, left nothing. */
export function endedWell(r: Interruption): boolean {
  return !r.finishedFirst && r.ended && r.signal === 'SIGINT' && r.saidInterrupted && r.left.length === 0;
}

/** One line per try, for a person. */
export function interruptionLine(r: Interruption): string {
  if (r.finishedFirst) return `${r.moment}: finished before the moment (exit ${r.status})`;
  const how = r.ended ? `ended in ${r.endMs} ms by ${r.signal ?? `exit ${r.status}`}` : `HUNG: alive ${HUNG_AFTER_MS / 1000} s after SIGINT`;
  return `${r.moment}: ${how}, ${r.saidInterrupted ? 'said interrupted' : 'NO interrupted line'}, ${r.left.length === 0 ? 'left nothing' : `LEFT ${r.left.join(', ')}`}`;
}
