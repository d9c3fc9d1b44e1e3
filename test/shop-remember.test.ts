import { describe, expect, it } from 'vitest';
import { reusableMemoryStores } from '../src/harness/engines/scripted/reusable-stores.js';
import { ReadCachingShop } from '../src/harness/engines/scripted/shop-read-cache.js';
import { lanternScenarios } from '../src/model/load.js';
import { Shop } from '../src/model/shop.js';

// The reused shop (ReadCachingShop, src/harness/engines/scripted/shop-read-cache.ts) answers reads of
// tables nothing changed from what it noted of the seeded rows, and read tool calls from earlier
// identical ones. Whatever changed them, the rows read must be the rows held: the same as a plain
// Shop's, which always queries.
const scenario = lanternScenarios()[0]!;
const order = scenario.shop.orders[0]!;
const line = order.lines[0]!;

function queried(shop: Shop) {
  return { snapshot: shop.snapshot(), writes: shop.writeLog(), refusals: shop.refusalLog() };
}

describe('the reused shop\'s read cache', () => {
  it('is what the reused stores hand out', () => {
    const { stores, release } = reusableMemoryStores(scenario.shop);
    try {
      expect(stores.shop).toBeInstanceOf(ReadCachingShop);
    } finally {
      release();
    }
  });

  it('reads what its own write changed, and the seeded rows again after the rollback', () => {
    const seeded = Shop.create(scenario.shop);
    const first = reusableMemoryStores(scenario.shop);
    expect(queried(first.stores.shop)).toEqual(queried(seeded));
    first.stores.shop.call('refund', { orderId: order.id, lineId: line.lineId, amountCents: 1 }, null);
    const after = queried(first.stores.shop);
    expect(after.writes).toHaveLength(1);
    expect(after.snapshot.refunds.length).toBe(seeded.snapshot().refunds.length + 1);
    first.release();
    const second = reusableMemoryStores(scenario.shop);
    expect(queried(second.stores.shop)).toEqual(queried(seeded));
    second.release();
    seeded.close();
  });

  it('reads a change made behind its back, through the database itself', () => {
    const { stores, release } = reusableMemoryStores(scenario.shop);
    try {
      stores.shop.db.prepare("INSERT INTO emails (customer_id, subject, body) VALUES ('x', 'y', 'z')").run();
      stores.shop.db.prepare("INSERT INTO write_log (kind, target, args, key) VALUES ('send_email', 'x', '{}', NULL)").run();
      expect(stores.shop.snapshot().emails).toEqual(['{"id":1,"customer_id":"x","subject":"y","body":"z"}']);
      expect(stores.shop.writeLog()).toEqual([{ kind: 'send_email', target: 'x', args: '{}', key: null }]);
    } finally {
      release();
    }
  });

  it('answers a read again only while the tables it reads are unchanged', () => {
    const { stores, release } = reusableMemoryStores(scenario.shop);
    try {
      const shop = stores.shop;
      const customerId = order.customerId;
      const email = scenario.shop.customers.find((c) => c.id === customerId)!.email;
      const reads = () => [
        shop.call('get_order', { orderId: order.id }),
        shop.call('list_refunds', { orderId: order.id }),
        shop.call('list_orders', { customerId }),
        shop.call('find_customer', { email }),
      ];
      const before = reads();
      expect(reads()).toEqual(before);
      shop.call('refund', { orderId: order.id, lineId: line.lineId, amountCents: 1 }, null);
      shop.call('change_address', { customerId, address: 'somewhere else' }, null);
      shop.call('cancel_order', { orderId: order.id }, null);
      const after = reads();
      const fresh = Shop.create(scenario.shop);
      fresh.call('refund', { orderId: order.id, lineId: line.lineId, amountCents: 1 }, null);
      fresh.call('change_address', { customerId, address: 'somewhere else' }, null);
      fresh.call('cancel_order', { orderId: order.id }, null);
      expect(after).toEqual([
        fresh.call('get_order', { orderId: order.id }),
        fresh.call('list_refunds', { orderId: order.id }),
        fresh.call('list_orders', { customerId }),
        fresh.call('find_customer', { email }),
      ]);
      for (let i = 0; i < after.length; i++) expect(after[i]).not.toEqual(before[i]);
      fresh.close();
    } finally {
      release();
    }
  });

  it('hands out copies: changing what it returned changes nothing it returns later', () => {
    const { stores, release } = reusableMemoryStores(scenario.shop);
    try {
      const before = JSON.stringify(queried(stores.shop));
      const got = queried(stores.shop);
      got.snapshot.orders.push('junk');
      got.writes.push({ kind: 'refund', target: 'x', args: '{}', key: null });
      expect(JSON.stringify(queried(stores.shop))).toBe(before);
    } finally {
      release();
    }
  });
});
