// What a heavy test file runs. `npm test` keeps near five minutes on 2 cores, so each file whose
// whole run takes a minute or more (a real engine's lives, installs, CI files run as a runner would)
// runs one sample of itself there: its cheapest test that still drives its engine or tier end to
// end, and beside it only tests of a second or less on what the sample started (each file's header
// says which). `npm run engines` (KILLPOINT_SUITE=all) runs every test of those files, and CI runs it after
// `npm test`; CI's legs of other Nodes set it too, running their files whole as before. Each file
// run alone on 2 shared cores, the eleven took 915 s whole (the examples 290 s of it) and take 193 s
// as samples.
// A file that takes this is named in `npm run engines` (test/suite.test.ts checks both ways).

import { describe, test } from 'vitest';

const SUITE = process.env.KILLPOINT_SUITE ?? 'sample';
if (!['sample', 'all'].includes(SUITE)) throw new Error(`KILLPOINT_SUITE: expected sample or all, got "${SUITE}"`);

/** Every test of the heavy files (KILLPOINT_SUITE=all: `npm run engines`, CI's legs), not their samples alone. */
export const fullSuite = SUITE === 'all';

/** A test beyond its file's sample: skipped by `npm test`, run by `npm run engines`. */
export const fullSuiteTest = test.runIf(fullSuite);

/** A group of tests beyond its file's sample: skipped by `npm test`, run by `npm run engines`. */
export const fullSuiteDescribe = describe.runIf(fullSuite);
