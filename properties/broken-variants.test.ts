// A check that cannot fail is a defect: each broken variant fails the property it breaks. These
// assert the failure as a value (fast-check's result), and that the report explains it.
import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { checkProperty } from './run-property.js';
import { conversationValid, exactlyOnce, noPartialAnswer, repeatIffGap } from '../src/harness/search/properties.js';

describe('each broken variant fails the property it breaks', () => {
  test('keys from a fresh random id repeat a write: exactly-once fails (journal)', () => {
    const run = checkProperty('keys: exactly once', 'properties/keys-exactly-once.test.ts', 'journal+random-keys', exactlyOnce, { numRuns: 400 });
    expect(run.failed).toBe(true);
    expect(run.report).toMatch(/replay: /);
  });

  test('keys from a fresh random id repeat a write: exactly-once fails (workflow)', () => {
    const run = checkProperty('keys: exactly once', 'properties/keys-exactly-once.test.ts', 'workflow+random-keys', exactlyOnce, { numRuns: 400 });
    expect(run.failed).toBe(true);
  });

  test('a resume that looks only at the last message leaves a parallel call unanswered: conversation-valid fails', () => {
    const run = checkProperty('resumed conversation valid', 'properties/conversation-valid.test.ts', 'journal+keys/last-message', conversationValid, { numRuns: 400 });
    expect(run.failed).toBe(true);
    expect(run.report).toMatch(/invalid conversation|has no result/);
  });

  test('a journal entry written before its write loses the write: repeat-iff-gap (none lost) fails', () => {
    const run = checkProperty('no keys: repeat iff gap', 'properties/repeat-iff-gap.test.ts', 'journal/entry-before-write', repeatIffGap, { numRuns: 400 });
    expect(run.failed).toBe(true);
    expect(run.report).toMatch(/never sent|but repeated/);
  });

  test('a journal that saves the answer while it streams delivers half of it: no-partial-answer fails', () => {
    const run = checkProperty('no partial answer', 'properties/no-partial-answer.test.ts', 'journal/partial-answer', noPartialAnswer, { numRuns: 400 });
    expect(run.failed).toBe(true);
    expect(run.report).toMatch(/partial answer/);
  });
});
