// The chapter's two stories of the gap after a write, on the bundled Lantern tasks.

import { describe, expect, it } from 'vitest';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { lanternScenario } from '../src/model/load.js';
import { afterFirstCommit, killAndJudge } from './helpers.js';

const dana = lanternScenario('T01');
const grace = lanternScenario('T02');
const danaRefund = 'refund O-1042/L1 {"amountCents":7950,"lineId":"L1","orderId":"O-1042"}';

describe("Dana's torn pad, killed right after the refund commits", () => {
  it.each(['restart', 'journal', 'workflow', 'journal+random-keys', 'workflow+random-keys'] as const)(
    '%s commits a second $79.50 refund',
    (strategy) => {
      const verdict = killAndJudge(dana, strategy, [afterFirstCommit(dana, strategy)]);
      expect(verdict.doneTwice.map(String)).toEqual([danaRefund]);
      expect(verdict.extraWrites).toBe(1);
      expect(verdict.shopDiff.map(String)).toEqual([expect.stringMatching(/^\+ refunds .*"amount_cents":7950/)]);
    },
  );

  it.each(['journal+keys', 'workflow+keys'] as const)('%s commits one refund, gives the same answer and redoes no model call', (strategy) => {
    const verdict = killAndJudge(dana, strategy, [afterFirstCommit(dana, strategy)]);
    expect(verdict.sentAgain).toBe(1);
    expect(verdict.harmlessRepeats).toBe(1);
    expect(verdict.doneTwice).toEqual([]);
    expect(verdict.extraWrites).toBe(0);
    expect(verdict.shopDiff).toEqual([]);
    expect(verdict.sameAnswer).toBe(true);
    expect(verdict.modelCallsRedone).toBe(0);
  });

  it('stable keys are built from the run and the step; random ones change with every life', () => {
    const keysOf = (strategy: 'journal+keys' | 'workflow+keys' | 'journal+random-keys') =>
      simulate(dana, strategy, { kills: [afterFirstCommit(dana, strategy)], interleaving: [] }).writes.map((w) => w.key);
    expect(keysOf('journal+keys')).toEqual(['T01:call_refund']);
    expect(keysOf('workflow+keys')).toEqual(['T01:9']);
    const random = keysOf('journal+random-keys');
    expect(random).toHaveLength(2);
    expect(random[0]).not.toBe(random[1]);
  });
});

describe("Grace's $68 refund, killed right after it commits", () => {
  it('the journal sends it again, the shop refuses, and she is told it is blocked and handed to a person', () => {
    const verdict = killAndJudge(grace, 'journal', [afterFirstCommit(grace, 'journal')]);
    expect(verdict.sentAgain).toBe(1);
    expect(verdict.refused).toEqual({ 'over-refund': 1 });
    expect(verdict.doneTwice).toEqual([]);
    expect(verdict.differentWrites.map(String)).toEqual([expect.stringMatching(/^hand_off C-102 /)]);
    expect(verdict.extraWrites).toBe(1);
    expect(verdict.sameAnswer).toBe(false);
    expect(verdict.answer).toContain('blocked');
    expect(verdict.answer).toContain('passed your case to a person');
  });

  it.each(['journal+keys', 'workflow+keys'] as const)('with %s: one refund and the same answer', (strategy) => {
    const verdict = killAndJudge(grace, strategy, [afterFirstCommit(grace, strategy)]);
    expect(verdict.writesCommitted).toBe(1);
    expect(verdict.refusedTotal).toBe(0);
    expect(verdict.sameAnswer).toBe(true);
  });
});
