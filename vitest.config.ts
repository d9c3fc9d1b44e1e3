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
    // Files share a worker's loaded modules instead of each loading them again: on the 58 lighter
    // files, 122 s of CPU instead of 169 s (most of it loading the engines and their SDKs). Every
    // file restores what it changes (environment, spies, backends it held).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // python3 without a version manager's shim at every start (see the file).
    env: pythonFirstOnPath(import.meta.dirname),
  },
});
