// Temp folders that name their owner (owner.ts), so none outlives it for long: the watcher removes
// them when the owner dies (orphan-watcher.ts), and should the watcher have died too, the first
// killpoint process to make a temp folder in the same place removes every one whose owner is gone,
// after killing what still runs from it (a Postgres server whose owner died with its watcher).

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchFolder } from './orphan-watcher.js';
import { OWNER_TAG, ownerHasEnded } from './owner.js';
import { killWithItsGroup, processesNaming } from './process-tree.js';

/** The temp roots swept by this process (TMPDIR may change while it runs; each is swept once). */
const sweptRoots = new Set<string>();

/** A fresh folder in the temp root, named by `prefix` and its owner; `release()` removes it. */
export function ownedTempDir(prefix: string): { dir: string; release(): void } {
  sweepOrphanedTempDirs();
  const dir = mkdtempSync(join(tmpdir(), `${prefix}${OWNER_TAG}-`));
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
export function sweepOrphanedTempDirs(root: string = tmpdir()): void {
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
