import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'properties/**/*.test.ts'],
    // The regression corpus replays first: a bug found once is checked before anything new.
    sequence: { groupOrder: 0 },
    // Two files at a time on a 2-core machine: most files wait on child processes more than they compute.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
