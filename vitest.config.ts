import { defineConfig } from 'vitest/config';
import { pythonFirstOnPath } from './test/python-first-on-path.js';

/**
 * Test files that share their worker's loaded modules with the files run before them there, instead
 * of loading everything anew (about a second of CPU a file, most of it importing killpoint and its
 * packages). Only files that run no real engine in their own process and change nothing global:
 * killpoint's simulation, its scripted agents in child processes, its reports and its commands on
 * them. A file that runs DBOS, Restate, LangGraph or Vercel Workflow here keeps a module state of
 * its own: DBOS is one per process, and one left launched by a file's killed lives broke the next
 * file's first DBOS life when every file shared. A new file is isolated until it is added here.
 */
const SHARED_MODULE_STATE = [
  'properties/conversation-valid.test.ts', 'properties/deterministic.test.ts', 'properties/equivalence.test.ts', 'properties/keys-exactly-once.test.ts',
  'properties/no-partial-answer.test.ts', 'properties/repeat-iff-gap.test.ts',
  'test/agent-client.test.ts', 'test/ai-sdk-model.test.ts', 'test/any-language-harness.test.ts', 'test/bad-input.test.ts', 'test/chapter-table.test.ts',
  'test/check-command.test.ts', 'test/cli-errors.test.ts', 'test/cli-harness-input.test.ts', 'test/cli-help.test.ts', 'test/conversation.test.ts',
  'test/cut-as-it-runs.test.ts', 'test/dana-and-grace.test.ts', 'test/estimate-command.test.ts', 'test/estimator.test.ts', 'test/events-file.test.ts',
  'test/explore.test.ts', 'test/file-stores.test.ts', 'test/folder-files.test.ts', 'test/half-answer.test.ts', 'test/harness-faults.test.ts',
  'test/harness-report.test.ts', 'test/html-report.test.ts', 'test/inlined-child-paths.test.ts', 'test/input-faults-corpus.test.ts',
  'test/input-faults-scenario.test.ts', 'test/input-faults-stdout.test.ts', 'test/joined-lives.test.ts', 'test/journal-cache.test.ts',
  'test/kill-points.test.ts', 'test/life-threads.test.ts', 'test/lost-write.test.ts', 'test/minimal-counterexample.test.ts', 'test/parallel-calls.test.ts',
  'test/process-faults-postgres-url.test.ts', 'test/readme.test.ts', 'test/real-interrupt.test.ts', 'test/recovery-moments.test.ts', 'test/root-cause.test.ts',
  'test/scenario-conditions.test.ts', 'test/scripted-model.test.ts', 'test/seed-systems.test.ts', 'test/shop-remember.test.ts', 'test/shop-state-check.test.ts',
  'test/shop.test.ts', 'test/state-digest.test.ts', 'test/suite.test.ts',
];

export default defineConfig({
  test: {
    // Three files at a time on a 2-core machine: many files wait on child processes (engines'
    // lives, servers, example installs) as much as they compute; measured on an idle 2-core
    // machine, the suite took 344 s with two and 303 s with three.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // python3 without a version manager's shim at every start (see the file).
    env: pythonFirstOnPath(import.meta.dirname),
    projects: [
      // The regression corpus replays first: a bug found once is checked before anything new. Both
      // projects in one group, so that their files share the workers.
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts', 'properties/**/*.test.ts'], exclude: SHARED_MODULE_STATE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'shared', include: SHARED_MODULE_STATE, isolate: false, sequence: { groupOrder: 0 } } },
    ],
  },
});
