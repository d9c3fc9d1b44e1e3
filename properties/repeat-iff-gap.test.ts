// Without keys, a journal or a workflow repeats a write if and only if a kill lands in that write's
// gap (after the shop commits it, before the save that records it), and never loses one.
import { test } from '@fast-check/vitest';
import { describe } from 'vitest';
import { assertProperty } from './run-property.js';
import { repeatIffGap } from '../src/harness/search/properties.js';

describe('without keys a write is repeated iff a kill lands in its gap', () => {
  for (const strategy of ['journal', 'workflow'] as const) {
    test(`${strategy}: repeated exactly the writes killed in their gap, none lost`, () => {
      assertProperty('no keys: repeat iff gap', 'properties/repeat-iff-gap.test.ts', strategy, repeatIffGap, { numRuns: 150 });
    });
  }
});
