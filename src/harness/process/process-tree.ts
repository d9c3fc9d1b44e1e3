// What a child started, found in /proc (Linux): a life's descendants can leave its process group
// and its session (setsid, spawn with detached: true), and once they outlive the life they are
// nobody's children of ours any more. Three ways find them, each for a case the others miss:
//
// - the tree under a process while it is alive (/proc/<pid>/task/<tid>/children), whatever its
//   descendants did to their environment or session;
// - a variable in the environment every child is started with (a descendant inherits it unless it
//   clears its environment), which finds them after the life is gone, wherever they moved;
// - the processes holding one of our pipes, the last resort for one that did both.
//
// Where there is no /proc (not Linux), each finds nothing, and a life's process group is all that
// is killed.

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

const PROC = '/proc';
const HAS_PROC = existsSync(`${PROC}/self/stat`);

/** The numbers of the processes running now. */
export function pidsNow(): number[] {
  if (!HAS_PROC) return [];
  const pids: number[] = [];
  for (const name of readdirSync(PROC)) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid > 0) pids.push(pid);
  }
  return pids;
}

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces): [0] is the state. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When a process started, in clock ticks since boot: with its pid, names it though pids are reused. */
export function startTicksOf(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

/**
 * Whether the process `pid` that started at `startTicks` still runs (a zombie has ended). Without
 * /proc, whether any process has that pid: a folder of a live owner must never be taken for a dead one's.
 */
export function isRunning(pid: number, startTicks: string): boolean {
  if (!HAS_PROC) return pidAnswers(pid);
  const fields = statFields(pid);
  return fields !== null && fields[19] === startTicks && fields[0] !== 'Z';
}

/** Whether a process of this id exists (it may be another's: EPERM still means it exists). */
export function pidAnswers(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The last pid the kernel gave out, or null where it cannot be read. */
export function lastPidGiven(): number | null {
  try {
    return Number(readFileSync(`${PROC}/sys/kernel/ns_last_pid`, 'utf8'));
  } catch {
    return null;
  }
}

/** Every process under `pid` now, children before their own children; none once it has ended. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const child of childrenOf(parent)) {
      if (found.includes(child)) continue; // a pid reused while we read
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`${PROC}/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return readFileSync(`${PROC}/${pid}/task/${task}/children`, 'utf8').split(' ').filter((p) => p !== '').map(Number);
    } catch {
      return [];
    }
  });
}

/**
 * Whether the environment `pid` was started with holds `entry` ("NAME=value"), or, with `prefix`,
 * an entry that starts with it. A process of another user cannot be read: not found.
 */
export function hasEnvironmentEntry(pid: number, entry: string, match: 'whole' | 'prefix'): boolean {
  const environ = environmentOf(pid);
  if (environ === null) return false;
  const wanted = Buffer.from(match === 'whole' ? `${entry}\0` : entry);
  for (let at = environ.indexOf(wanted); at !== -1; at = environ.indexOf(wanted, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/** How long a process in the middle of exec is waited for before its environment is read again. */
const EXEC_WAIT_MS = 1;
/** How many times: an exec takes well under a millisecond, but a busy machine can hold it up. */
const EXEC_WAITS = 50;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
/** A kernel thread has no environment, ever (PF_KTHREAD in /proc/<pid>/stat's flags). */
const KERNEL_THREAD = 0x00200000;
/** Processes (pid and start) that were waited for and truly have an empty environment: not waited for again. */
const emptyForGood = new Set<string>();

/**
 * The environment `pid` was started with; null if it cannot be read. A process in the middle of
 * exec shows an empty one for a moment (the new program's memory has none laid out yet), and its
 * command line may already be there: read then, a daemon that a life's shell is starting would be
 * taken for a stranger and left running. So an empty environment is read again until the exec is
 * done, unless the process cannot have one (a kernel thread, a zombie) or was found empty before.
 */
function environmentOf(pid: number): Buffer | null {
  let which: string | null = null;
  for (let wait = 0; ; wait++) {
    let environ: Buffer;
    try {
      environ = readFileSync(`${PROC}/${pid}/environ`);
    } catch {
      return null;
    }
    if (environ.length > 0) return environ;
    const fields = statFields(pid);
    if (fields === null || fields[0] === 'Z' || (Number(fields[6]) & KERNEL_THREAD) !== 0) return environ;
    which ??= `${pid}:${fields[19]}`;
    if (emptyForGood.has(which)) return environ;
    if (wait === EXEC_WAITS) {
      emptyForGood.add(which);
      return environ;
    }
    Atomics.wait(SLEEPER, 0, 0, EXEC_WAIT_MS);
  }
}

/** The processes (other than this one) with an open file that is the same pipe as our descriptor `fd`. */
export function holdersOfPipe(fd: number): number[] {
  let pipe: string;
  try {
    pipe = readlinkSync(`${PROC}/self/fd/${fd}`);
  } catch {
    return [];
  }
  if (!pipe.startsWith('pipe:')) return [];
  return pidsNow().filter((pid) => pid !== process.pid && holdsFile(pid, pipe));
}

function holdsFile(pid: number, link: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`${PROC}/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      return readlinkSync(`${PROC}/${pid}/fd/${fd}`) === link;
    } catch {
      return false;
    }
  });
}

/** The processes (other than this one) whose command line holds `text` (a folder's path, say). */
export function processesNaming(text: string): number[] {
  const wanted = Buffer.from(text);
  return pidsNow().filter((pid) => {
    if (pid === process.pid) return false;
    try {
      return readFileSync(`${PROC}/${pid}/cmdline`).includes(wanted);
    } catch {
      return false;
    }
  });
}

/** SIGKILL to the process group `pgid`, if there is one. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/**
 * SIGKILL to `pid` and to the process group it leads, if it leads one (a group keeps the number of
 * the process that made it, and no process is given that number while the group exists).
 */
export function killWithItsGroup(pid: number): void {
  killGroup(pid);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
