// The shop-state check: the same shop as the baseline's, row for row, except for the row numbers the
// shop hands out (two writes committed in the other order swap them and change nothing else).

import { describe, expect, it } from 'vitest';
import { failedChecks, shopStateDifference } from '../src/harness/check/checks.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { judge, type Verdict } from '../src/harness/check/verdict.js';
import { ShopDifference } from '../src/harness/check/records.js';
import { lanternScenario } from '../src/model/load.js';

// Differences written as the verdict's JSON shows them: "+ table row".
const withDiff = (lines: string[]) => ({
  shopDiff: lines.map((line) => {
    const [sign, table, ...row] = line.split(' ');
    return new ShopDifference(sign as '+' | '-', table!, row.join(' '));
  }),
}) as unknown as Verdict;

describe('shopStateDifference', () => {
  it('ignores two cancellations that swapped their row numbers', () => {
    expect(shopStateDifference(withDiff([
      '+ cancellations {"id":1,"order_id":"O-3102"}',
      '+ cancellations {"id":2,"order_id":"O-3101"}',
      '- cancellations {"id":1,"order_id":"O-3101"}',
      '- cancellations {"id":2,"order_id":"O-3102"}',
    ]))).toEqual([]);
  });

  it('keeps a customer whose final address differs, whatever the order of the writes', () => {
    const diff = [
      '+ customers {"id":"C-104","name":"Owen","email":"o@example.com","address":"1 Old Road"}',
      '- customers {"id":"C-104","name":"Owen","email":"o@example.com","address":"2 New Road"}',
    ];
    expect(shopStateDifference(withDiff(diff))).toHaveLength(2);
  });

  it('keeps a second refund', () => {
    expect(shopStateDifference(withDiff(['+ refunds {"id":2,"order_id":"O-1042","line_id":"L1","amount_cents":7950}'])))
      .toEqual([new ShopDifference('+', 'refunds', '{"order_id":"O-1042","line_id":"L1","amount_cents":7950}')]);
  });
});

describe('the shop-differs check', () => {
  const dana = lanternScenario('T01');
  const run = (strategy: 'journal' | 'journal+keys') => {
    const baseline = simulate(dana, strategy, { kills: [], interleaving: [] });
    const commit = baseline.lives[0]!.events.find((e) => e.kind === 'shop-commit')!.index;
    const outcome = simulate(dana, strategy, { kills: [commit], interleaving: [] });
    return failedChecks({ scenario: dana, outcome, verdict: judge(dana, outcome, baseline) });
  };

  it("fails Dana's second refund under the journal", () => {
    expect(run('journal')).toContain('shop-differs');
  });

  it('holds with keys', () => {
    expect(run('journal+keys')).not.toContain('shop-differs');
  });
});
