// A killpoint process killed with SIGKILL runs no handler: its lives, what they started, the
// Postgres server it started and its temp folders would all stay. Node cannot ask the kernel to
// signal a child when its parent dies (prctl PR_SET_PDEATHSIG), and an agent under test cannot be
// asked to watch for it. So one small process per killpoint process, started with the first child,
// server or folder, watches for its owner's death instead: it is told, one line on its stdin each,
// what to end (process groups, with the signal that ends each best) and what to remove (folders),
// and what has ended already. Its stdin closes when the owner goes, however it goes; it then
// ends the groups, kills every process whose environment carries one of the owner's tree ids
// (owner.ts: what the lives started, in sessions of their own too), waits for servers to stop, and
// removes the folders. One watcher per process rather than one wrapper per life: a life starts as
// fast as before, and telling the watcher of it is a line written to a pipe.
//
// The watcher is in a session of its own (a Ctrl-C at the terminal is the owner's to handle) and
// holds none of the owner's output (a reader of the owner's stderr must not wait for it).

import { spawn, type ChildProcess } from 'node:child_process';
import { TREE_PREFIX, TREE_VARIABLE } from './owner.js';

/** How long a server given a gentler signal than SIGKILL may take to stop before it is killed. */
const GENTLE_STOP_MS = 5_000;

/** The watcher's program, run by `node -e`: plain JavaScript, so it starts fast and needs no build. */
const WATCHER_SOURCE = `'use strict';
const fs = require('node:fs');
const treeEntry = Buffer.from(process.argv[1]);
const groups = new Map();
const folders = new Set();
let pending = '';
let ending = false;

process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  pending += text;
  for (let nl = pending.indexOf('\\n'); nl !== -1; nl = pending.indexOf('\\n')) {
    apply(JSON.parse(pending.slice(0, nl)));
    pending = pending.slice(nl + 1);
  }
});
process.stdin.on('end', endAll);
process.stdin.on('error', endAll);

function apply([verb, what, signal]) {
  if (verb === '+group') groups.set(Number(what), signal);
  else if (verb === '-group') groups.delete(Number(what));
  else if (verb === '+folder') folders.add(what);
  else if (verb === '-folder') folders.delete(what);
}

function send(target, signal) {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}

function carriesTree(pid) {
  let environ;
  try {
    environ = fs.readFileSync('/proc/' + pid + '/environ');
  } catch {
    return false;
  }
  for (let at = environ.indexOf(treeEntry); at !== -1; at = environ.indexOf(treeEntry, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

function treeMembers() {
  try {
    return fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name)).map(Number).filter(carriesTree);
  } catch {
    return [];
  }
}

async function endAll() {
  if (ending) return;
  ending = true;
  for (const [pgid, signal] of groups) send(-pgid, signal);
  for (let round = 0; round < 3; round++) {
    const members = treeMembers();
    if (members.length === 0) break;
    for (const pid of members) {
      send(-pid, 'SIGKILL');
      send(pid, 'SIGKILL');
    }
  }
  const until = Date.now() + ${GENTLE_STOP_MS}; // real clock: how long a server is given to stop before it is killed.
  while ([...groups].some(([pgid, signal]) => signal !== 'SIGKILL' && send(-pgid, 0)) && Date.now() < until) { // real clock: until, above.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (const pgid of groups.keys()) send(-pgid, 'SIGKILL');
  for (const folder of folders) {
    try {
      fs.rmSync(folder, { recursive: true, force: true });
    } catch {}
  }
  process.exit(0);
}
`;

/** The watcher, started on first use; null where it could not be started (then nothing is watched). */
let watcher: ChildProcess | null | undefined;

function startWatcher(): ChildProcess | null {
  if (process.platform === 'win32') return null;
  try {
    // Its environment is empty: it needs none, and must carry no tree id of a killpoint above us.
    const started = spawn(process.execPath, ['-e', WATCHER_SOURCE, `${TREE_VARIABLE}=${TREE_PREFIX}`], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: {} });
    // A watcher that died, or could not start, makes our writes fail: nothing is watched from then on.
    started.on('error', () => {});
    started.stdin!.on('error', () => {});
    // It must not keep its owner running: the owner's end is what it waits for.
    started.unref();
    (started.stdin as unknown as { unref?(): void }).unref?.();
    return started;
  } catch {
    return null;
  }
}

/** One line of JSON per message (a folder's path may hold any character). */
function tell(message: [verb: string, what: string | number, signal?: NodeJS.Signals]): void {
  if (watcher === undefined) watcher = startWatcher();
  watcher?.stdin?.write(`${JSON.stringify(message)}\n`);
}

/**
 * The process group `pgid` is ended if this process dies before `unwatch()` is called: with
 * `firstSignal` (a server's own way to stop at once, such as Postgres's SIGQUIT), then SIGKILL.
 */
export function watchGroup(pgid: number, firstSignal: NodeJS.Signals = 'SIGKILL'): () => void {
  tell(['+group', pgid, firstSignal]);
  let watched = true;
  return () => {
    if (!watched) return;
    watched = false;
    tell(['-group', pgid]);
  };
}

/** The folder `dir` is removed if this process dies before `unwatch()` is called (after the groups have ended). */
export function watchFolder(dir: string): () => void {
  tell(['+folder', dir]);
  let watched = true;
  return () => {
    if (!watched) return;
    watched = false;
    tell(['-folder', dir]);
  };
}

/** The watcher's pid, or null before it is started (for tests that kill it with its owner). */
export function watcherPid(): number | null {
  return watcher?.pid ?? null;
}
