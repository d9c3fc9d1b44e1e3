// The same inputs (agent, strategy, interleaving, kill schedule) give the same events, shop, logs
// and answers: nothing depends on the clock or on an unseeded random number.
import { test } from '@fast-check/vitest';
import { describe } from 'vitest';
import { ALL_STRATEGY_NAMES } from '../src/harness/engines/scripted/strategies.js';
import { assertProperty } from './run-property.js';
import { deterministic } from '../src/harness/search/properties.js';

describe('the same inputs give the same events', () => {
  for (const strategy of ALL_STRATEGY_NAMES) {
    test(`${strategy}`, () => {
      assertProperty('deterministic', 'properties/deterministic.test.ts', strategy, deterministic, { numRuns: 25 });
    });
  }
});
