// No partial answer is ever delivered, kept in the conversation that survives, or acted on, under
// any strategy: a reply is acted on only once it has completely streamed in.
import { test } from '@fast-check/vitest';
import { describe } from 'vitest';
import { ALL_STRATEGY_NAMES } from '../src/harness/engines/scripted/strategies.js';
import { assertProperty } from './run-property.js';
import { noPartialAnswer } from '../src/harness/search/properties.js';

describe('no partial answer is delivered, stored or acted on', () => {
  // journal/partial-answer exists to break this property; broken-variants.test.ts asserts that it does.
  for (const strategy of ALL_STRATEGY_NAMES.filter((name) => name !== 'journal/partial-answer')) {
    test(`${strategy}`, () => {
      assertProperty('no partial answer', 'properties/no-partial-answer.test.ts', strategy, noPartialAnswer, { numRuns: 40 });
    });
  }
});
