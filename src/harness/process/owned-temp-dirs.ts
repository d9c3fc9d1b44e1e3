// Temp folders that name their owner (owner.ts), so none outlives it for long: the watcher removes
// them when the owner dies (orphan-watcher.ts), and should the watcher have died too, the first
// killpoint process to make a temp folder in the same place removes every one whose owner is gone,
// after killing what still runs from it (a Postgres server whose owner died with its watcher).

import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchFolder } from './orphan-watcher.js';
import { OWNER_TAG, ownerHasEnded } from './owner.js';
import { killWithItsGroup, processesNaming } from './process-tree.js';

/** Memory the machine offers as a folder, used when it has room to spare. */
const MEMORY_ROOT = '/dev/shm';
const MEMORY_ROOT_MIN_FREE_BYTES = 2 * 2 ** 30;
let memoryRoot: boolean | undefined;

/**
 * Where killpoint's temp folders go: TMPDIR when it is set (a user's or a test's choice), else
 * memory (/dev/shm) when the machine has 2 GB of it free, else the system's temp folder. Lives
 * open, write and close small SQLite files thousands of times a sweep, and on a disk each close
 * waits for the disk; a SIGKILL leaves files in memory exactly as it leaves them on a disk.
 */
export function tempRoot(): string {
  if (process.env.TMPDIR !== undefined && process.env.TMPDIR !== '') return tmpdir();
  memoryRoot ??= hasRoom(MEMORY_ROOT);
  return memoryRoot ? MEMORY_ROOT : tmpdir();
}

function hasRoom(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize >= MEMORY_ROOT_MIN_FREE_BYTES;
  } catch {
    return false;
  }
}

/** The temp roots swept by this process (TMPDIR may change while it runs; each is swept once). */
const sweptRoots = new Set<string>();

/** A fresh folder in the temp root, named by `prefix` and its owner; `release()` removes it. */
export function ownedTempDir(prefix: string): { dir: string; release(): void } {
  sweepOrphanedTempDirs();
  const dir = mkdtempSync(join(tempRoot(), `${prefix}${OWNER_TAG}-`));
  const unwatch = watchFolder(dir);
  let released = false;
  return {
    dir,
    release: () => {
      if (released) return;
      released = true;
      rmSync(dir, { recursive: true, force: true });
      unwatch();
    },
  };
}

/** Removes, once per temp root, the killpoint folders there whose owner has ended, and stops what still runs from them. */
export function sweepOrphanedTempDirs(root: string = tempRoot()): void {
  if (sweptRoots.has(root)) return;
  sweptRoots.add(root);
  const orphaned = orphanedIn(root);
  for (const dir of orphaned) {
    for (const pid of processesNaming(dir)) killWithItsGroup(pid);
    rmSync(dir, { recursive: true, force: true });
  }
}

function orphanedIn(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return []; // no temp root yet: nothing to sweep
  }
  return names.filter((name) => name.startsWith('killpoint-') && ownerHasEnded(name)).map((name) => join(root, name));
}
