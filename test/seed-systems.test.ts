// The two shorter seed stories, on the same kill machinery: a kill is "the process dies right
// after event k", found in an unkilled run by what the event means.

import { describe, expect, it } from 'vitest';
import { killAfterRefundOf, REFUND_REQUESTS, runBatchRefunds } from '../src/harness/chapter/seed-systems/batch-refund.js';
import { chargeKillPoints, runChargeReceipt } from '../src/harness/chapter/seed-systems/charge-receipt.js';

const count = (items: string[]) => items.reduce<Record<string, number>>((m, x) => ({ ...m, [x]: (m[x] ?? 0) + 1 }), {});

describe('batch refund agent: journals last_done, killed right after the refund for O-3', () => {
  it('without a kill: 5 refunds for 5 orders', () => {
    expect(runBatchRefunds({ checkKey: false, kills: [] }).refunds).toEqual(['O-1', 'O-2', 'O-3', 'O-4', 'O-5']);
  });

  it('without the check: the resume is at O-3, exactly as designed, and refunds it again: 6 refunds for 5 orders', () => {
    const run = runBatchRefunds({ checkKey: false, kills: [killAfterRefundOf('O-3', false)] });
    expect(run.resumedAt).toEqual([2]); // last_done = 1 (O-2), so the restart begins at O-3
    expect(run.refunds).toHaveLength(6);
    expect(count(run.refunds)).toEqual({ 'O-1': 1, 'O-2': 1, 'O-3': 2, 'O-4': 1, 'O-5': 1 });
  });

  it('with the key refund-O-3 checked where refunds are recorded: 5 for 5, and the customer is told it was already issued', () => {
    const run = runBatchRefunds({ checkKey: true, kills: [killAfterRefundOf('O-3', true)] });
    expect(run.resumedAt).toEqual([2]);
    expect(run.refunds).toEqual(['O-1', 'O-2', 'O-3', 'O-4', 'O-5']);
    expect(run.replies.find((r) => r.orderId === 'O-3')!.text).toBe('Your refund for order O-3 was already issued; nothing was charged again.');
    expect(run.replies.map((r) => r.orderId)).toEqual(REFUND_REQUESTS.map((r) => r.orderId)); // each customer answered once
  });

  it('with the check, no single kill anywhere refunds an order twice; without it, every kill between a refund and its journal entry does', () => {
    const events = runBatchRefunds({ checkKey: false, kills: [] }).lives[0]!.events;
    // The window of each request: from the refund's commit up to (not including) the save of last_done.
    const inWindow = (k: number) => {
      const commit = events.filter((e) => e.index <= k && e.kind === 'shop-commit').at(-1);
      return commit !== undefined && !events.some((e) => e.index > commit.index && e.index <= k && e.kind === 'journal-save');
    };
    let twiceWithout = 0;
    for (let k = -1; k < events.length; k++) {
      expect(runBatchRefunds({ checkKey: true, kills: [k] }).refunds).toHaveLength(5);
      const without = runBatchRefunds({ checkKey: false, kills: [k] }).refunds.length;
      expect(without).toBe(inWindow(k) ? 6 : 5);
      if (without === 6) twiceWithout++;
    }
    // Per request: the commit, the refund's result, the reply asked for, the reply, the reply delivered.
    expect(twiceWithout).toBe(5 * 5);
  });
});

describe('charge-then-receipt workflow (activities recorded after they return)', () => {
  it('killed after the charge is recorded: the resume starts at the receipt, with the charge restored from history', () => {
    const run = runChargeReceipt({ keyed: false, kills: [chargeKillPoints(false).afterRecord] });
    expect(run.ran).toEqual([['charge_card'], ['send_receipt']]);
    expect(run.charges).toEqual(['order-1']);
    expect(run.receipts).toEqual(['ch_1']);
  });

  it('killed in the gap after the charge and before its record: the charge runs again', () => {
    const run = runChargeReceipt({ keyed: false, kills: [chargeKillPoints(false).inTheGap] });
    expect(run.ran).toEqual([['charge_card'], ['charge_card', 'send_receipt']]);
    expect(run.charges).toEqual(['order-1', 'order-1']);
    expect(run.receipts).toEqual(['ch_2']);
  });

  it('keyed by the order id, the repeat in the gap gets the first charge back: one charge, its receipt', () => {
    const run = runChargeReceipt({ keyed: true, kills: [chargeKillPoints(true).inTheGap] });
    expect(run.ran).toEqual([['charge_card'], ['charge_card', 'send_receipt']]);
    expect(run.charges).toEqual(['order-1']);
    expect(run.receipts).toEqual(['ch_1']);
  });

  it('keyed, no kill point charges twice; unkeyed, exactly the kill points in the gap do', () => {
    const events = runChargeReceipt({ keyed: false, kills: [] }).lives[0]!.events;
    const twice: number[] = [];
    for (let k = -1; k < events.length; k++) {
      expect(runChargeReceipt({ keyed: true, kills: [k] }).charges).toHaveLength(1);
      if (runChargeReceipt({ keyed: false, kills: [k] }).charges.length === 2) twice.push(k);
    }
    const { inTheGap, afterRecord } = chargeKillPoints(false);
    expect(twice).toEqual(Array.from({ length: afterRecord - inTheGap }, (_, i) => inTheGap + i));
  });
});
