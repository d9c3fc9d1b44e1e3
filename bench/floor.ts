// The floor every process life pays, measured on this machine in this run: starting an empty node.

import { spawnSync } from 'node:child_process';

/** The median of seven starts of an empty node process, in milliseconds. */
export function emptyNodeStartMs(): number {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now(); // real clock: measuring process starts
    spawnSync(process.execPath, ['-e', '0']);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[3]!;
}
