// With stable keys, every write happens exactly once whatever the kills: the shop and the answer
// end as in the baseline and the conversation is valid, for every generated agent, interleaving
// and schedule of 1 to 3 kills.
import { test } from '@fast-check/vitest';
import { describe } from 'vitest';
import { assertProperty } from './run-property.js';
import { exactlyOnce } from '../src/harness/search/properties.js';

describe('with keys every write happens exactly once', () => {
  for (const strategy of ['journal+keys', 'workflow+keys'] as const) {
    test(`${strategy}: same shop, same answer, no write twice or lost, valid conversation`, () => {
      assertProperty('keys: exactly once', 'properties/keys-exactly-once.test.ts', strategy, exactlyOnce, { numRuns: 150 });
    });
  }
});
