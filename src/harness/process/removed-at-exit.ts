// Files and folders this process made for itself alone (a bundle of a user's module, a build of a
// workflow), removed when it exits, by one listener for all of them: a check of many modules in
// one process (a test file, a differential) adds no listener per module.

import { rmSync } from 'node:fs';

const paths = new Set<string>();

/** Removes `path` (a file or a folder) when this process exits. */
export function removedAtExit(path: string): void {
  if (paths.size === 0) process.once('exit', () => {
    for (const p of paths) rmSync(p, { recursive: true, force: true });
  });
  paths.add(path);
}
