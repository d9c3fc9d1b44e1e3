import { defineConfig } from 'vitest/config';
import { pythonFirstOnPath } from './test/python-first-on-path.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'properties/**/*.test.ts'],
    // The regression corpus replays first: a bug found once is checked before anything new.
    sequence: { groupOrder: 0 },
    // Three files at a time on a 2-core machine: many files wait on child processes (engines'
    // lives, servers, example installs) as much as they compute; measured on an idle 2-core
    // machine, the suite took 344 s with two and 303 s with three.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // python3 without a version manager's shim at every start (see the file).
    env: pythonFirstOnPath(import.meta.dirname),
  },
});
