// Everything a child started, ended with it. A child leads a process group of its own, and its
// descendants that stay in the group die with it; those that move to a session of their own (a
// daemon, `setsid`, spawn with detached: true) are found by the tree id in their environment (one
// per child: owner.ts), or, while the child is alive, under it in the process tree, whatever they
// did to their environment; the last resort, for one that left both and still holds the child's
// pipe, is to look for who holds it.

import { TREE_PREFIX, TREE_VARIABLE } from './owner.js';
import { descendantsOf, hasEnvironmentEntry, holdersOfPipe, killGroup, killWithItsGroup, lastPidGiven, pidsNow } from './process-tree.js';

/**
 * A life long enough that the kernel's pids may have gone round once: the processes running
 * before it are then no guide to what it started, and every process is looked at.
 */
const PIDS_MAY_WRAP_AFTER_MS = 5_000;

/** How many times the life's strays are looked for: one may start another while we kill it. */
const STRAY_ROUNDS = 3;

let childrenStarted = 0;

export class ChildTree {
  /** Set in the child's environment (TREE_VARIABLE); inherited by whatever it starts. */
  readonly id = `${TREE_PREFIX}${childrenStarted++}`;
  /** The processes running before the child: none of them is its descendant (pids are not reused soon). */
  private readonly pidsBefore = new Set(pidsNow());
  private readonly startedMs = Date.now(); // real clock: how long a child has lived decides whether process ids may have wrapped round.
  private root: number | undefined;
  /** Once the child is reaped its pid may be given to another process: only its group and strays are killed then. */
  private rootGone = false;
  private lastPidAtStart: number | null = null;

  /** The child's environment: `env` and the tree id. */
  environment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return { ...env, [TREE_VARIABLE]: this.id };
  }

  /** The child has started as `pid` (the leader of its own process group). */
  rootedAt(pid: number | undefined): void {
    this.root = pid;
    this.lastPidAtStart = lastPidGiven();
  }

  rootExited(): void {
    this.rootGone = true;
  }

  /**
   * Kills the child and everything it started: its tree while it is alive (read before anything
   * is killed, since a killed parent's children move to another), its group, then the processes
   * that carry its tree id wherever they are.
   */
  killAll(): void {
    if (this.root === undefined) return;
    if (this.rootGone) {
      killGroup(this.root);
    } else {
      const underRoot = descendantsOf(this.root);
      killWithItsGroup(this.root);
      for (const pid of underRoot) killWithItsGroup(pid);
    }
    this.killStrays();
  }

  /** Kills the processes holding the child's pipe `fd` (ours is the other end). */
  killHoldersOf(fd: number | undefined): void {
    if (fd === undefined) return;
    for (const pid of holdersOfPipe(fd)) killWithItsGroup(pid);
  }

  private killStrays(): void {
    for (let round = 0; round < STRAY_ROUNDS; round++) {
      const strays = this.strays();
      if (strays.length === 0) return;
      for (const pid of strays) killWithItsGroup(pid);
    }
  }

  private strays(): number[] {
    const entry = `${TREE_VARIABLE}=${this.id}`;
    const candidates = this.pidsMayHaveWrapped() ? pidsNow() : pidsNow().filter((pid) => !this.pidsBefore.has(pid));
    return candidates.filter((pid) => pid !== process.pid && hasEnvironmentEntry(pid, entry, 'whole'));
  }

  /** Whether a pid running before the child may have been given to one of its descendants since. */
  private pidsMayHaveWrapped(): boolean {
    const lastPidNow = lastPidGiven();
    if (this.lastPidAtStart === null || lastPidNow === null) return true;
    return lastPidNow < this.lastPidAtStart || Date.now() - this.startedMs > PIDS_MAY_WRAP_AFTER_MS; // real clock: see startedMs.
  }
}
