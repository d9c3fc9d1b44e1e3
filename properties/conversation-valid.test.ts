// Every resumed conversation is one a model API accepts: each tool call has exactly one result.
// This is the property that catches the chapter's last-message resume bug (see broken-variants).
import { test } from '@fast-check/vitest';
import { describe } from 'vitest';
import { STRATEGY_NAMES } from '../src/harness/engines/scripted/strategies.js';
import { assertProperty } from './run-property.js';
import { conversationValid } from '../src/harness/search/properties.js';

describe('every resumed conversation is valid', () => {
  for (const strategy of STRATEGY_NAMES) {
    test(`${strategy}`, () => {
      assertProperty('resumed conversation valid', 'properties/conversation-valid.test.ts', strategy, conversationValid, { numRuns: 80 });
    });
  }
});
