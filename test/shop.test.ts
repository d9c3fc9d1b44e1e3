// The shop enforces a real shop's rules and runs each idempotency key once, in the same transaction.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Shop } from '../src/model/shop.js';
import type { ShopRows } from '../src/model/scenario.js';

const rows: ShopRows = {
  customers: [{ id: 'C-1', name: 'Dana', email: 'dana@example.com', address: '1 Old Road' }],
  orders: [
    { id: 'O-1', customerId: 'C-1', status: 'delivered', lines: [{ lineId: 'L1', item: 'pad', quantity: 2, priceCents: 7950 }] },
    { id: 'O-2', customerId: 'C-1', status: 'cancelled', lines: [{ lineId: 'L1', item: 'mug', quantity: 1, priceCents: 1400 }] },
  ],
  refunds: [],
};

let shop: Shop;
beforeEach(() => {
  shop = Shop.create(rows);
});
afterEach(() => shop.close());

const refund = (amountCents: number, key: string | null = null) => shop.call('refund', { orderId: 'O-1', lineId: 'L1', amountCents }, key);

describe('the rules', () => {
  it('refunds up to what is left on the line, then refuses', () => {
    expect(refund(7950)).toMatchObject({ committed: true, result: { ok: true, leftCents: 7950 } });
    expect(refund(7950)).toMatchObject({ committed: true, result: { ok: true, leftCents: 0 } });
    expect(refund(1)).toMatchObject({ committed: false, result: { ok: false, refused: 'over-refund' } });
    expect(shop.writeLog()).toHaveLength(2);
    expect(shop.refusalLog()).toEqual([{ kind: 'refund', target: 'O-1/L1', args: '{"amountCents":1,"lineId":"L1","orderId":"O-1"}', key: null, reason: 'over-refund' }]);
  });

  it('does not cancel an order that is already cancelled', () => {
    expect(shop.call('cancel_order', { orderId: 'O-1' })).toMatchObject({ committed: true });
    expect(shop.call('cancel_order', { orderId: 'O-1' })).toMatchObject({ committed: false, result: { refused: 'already-cancelled' } });
    expect(shop.call('cancel_order', { orderId: 'O-2' })).toMatchObject({ committed: false, result: { refused: 'already-cancelled' } });
  });

  it.each([
    ['find_customer', { email: 'nobody@example.com' }, 'unknown-customer'],
    ['get_order', { orderId: 'O-9' }, 'unknown-order'],
    ['refund', { orderId: 'O-1', lineId: 'L9', amountCents: 100 }, 'unknown-line'],
    ['hand_off', { customerId: 'C-9', reason: 'help' }, 'unknown-customer'],
    ['refund', { orderId: 'O-1', lineId: 'L1', amountCents: -5 }, 'bad-arguments'],
  ] as const)('refuses %s with %j: %s', (tool, args, reason) => {
    expect(shop.call(tool, args)).toMatchObject({ committed: false, result: { ok: false, refused: reason } });
  });

  it('changes an address twice to the same address: two writes, one address', () => {
    shop.call('change_address', { customerId: 'C-1', address: '2 New Road' });
    shop.call('change_address', { customerId: 'C-1', address: '2 New Road' });
    expect(shop.writeLog()).toHaveLength(2);
    expect(shop.snapshot().customers).toEqual(['{"id":"C-1","name":"Dana","email":"dana@example.com","address":"2 New Road"}']);
  });
});

describe('idempotency keys', () => {
  it('runs a key once: the repeat returns the first result and changes nothing', () => {
    const first = refund(7950, 'T01:call_refund');
    const repeat = refund(7950, 'T01:call_refund');
    expect(repeat).toEqual({ result: first.result, committed: false, replayed: true });
    expect(shop.writeLog()).toEqual([{ kind: 'refund', target: 'O-1/L1', args: '{"amountCents":7950,"lineId":"L1","orderId":"O-1"}', key: 'T01:call_refund' }]);
    expect(shop.snapshot().refunds).toHaveLength(1);
  });

  it('a different key is a different write', () => {
    refund(7950, 'T01:a');
    expect(refund(7950, 'T01:b')).toMatchObject({ committed: true, replayed: false });
  });

  it('remembers a refusal under its key too, as payment services do', () => {
    refund(15900);
    const refused = refund(100, 'k');
    expect(refund(100, 'k')).toEqual({ result: refused.result, committed: false, replayed: true });
  });

  it('reads carry no key', () => {
    shop.call('get_order', { orderId: 'O-1' }, 'ignored');
    expect(shop.call('get_order', { orderId: 'O-1' }, 'ignored')).toMatchObject({ replayed: false });
  });
});
