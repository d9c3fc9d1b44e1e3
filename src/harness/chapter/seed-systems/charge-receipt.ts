// The charge-then-receipt workflow of the durable-execution seed: `order_flow` runs two activities,
// charge_card then send_receipt. Like Dapr Workflow (and DBOS), the runtime records an activity's
// output after it returns; a restarted workflow replays from the top, a recorded activity returns
// its recorded output without running, and the first unrecorded one runs. The payment provider is
// a separate system: with `keyed`, the charge carries the idempotency key built from the order id,
// and the provider returns the first charge for a repeat instead of charging again.
//
// Fault model: a kill lands between two events; the provider's charges, the mailer's receipts and
// the workflow history survive it, nothing else does.

import Database from 'better-sqlite3';
import type { RunEvent } from '../../check/events.js';
import { SqliteWorkflowStore } from '../../../model/stores.js';
import { runSeedLives, SeedClock, type SeedLife } from './lives.js';

export interface Order {
  id: string;
  amountCents: number;
  customer: string;
}

export const ORDER: Order = { id: 'order-1', amountCents: 4200, customer: 'ana@example.com' };

const TIMINGS = { activityWaitMs: 150, recordMs: 0.13 } as const;

interface Charge {
  chargeId: string;
  customer: string;
  amountCents: number;
  receiptUrl: string;
}

/** The payment provider: every charge it makes, and the results of the idempotency keys it has seen. */
class PaymentProvider {
  private readonly db = new Database(':memory:');
  private readonly chargeInTransaction: (order: Order, key: string | null) => { charge: Charge; replayed: boolean };

  constructor() {
    this.db.exec(`CREATE TABLE charges (seq INTEGER PRIMARY KEY, order_id TEXT NOT NULL, amount_cents INTEGER NOT NULL);
      CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, result TEXT NOT NULL);`);
    const seen = this.db.prepare('SELECT result FROM idempotency_keys WHERE key = ?');
    const insert = this.db.prepare('INSERT INTO charges (order_id, amount_cents) VALUES (?, ?)');
    const remember = this.db.prepare('INSERT INTO idempotency_keys VALUES (?, ?)');
    this.chargeInTransaction = this.db.transaction((order: Order, key: string | null) => {
      if (key !== null) {
        const first = seen.get(key) as { result: string } | undefined;
        if (first) return { charge: JSON.parse(first.result) as Charge, replayed: true };
      }
      const seq = Number(insert.run(order.id, order.amountCents).lastInsertRowid);
      const charge: Charge = { chargeId: `ch_${seq}`, customer: order.customer, amountCents: order.amountCents, receiptUrl: `https://pay.example/receipts/ch_${seq}` };
      if (key !== null) remember.run(key, JSON.stringify(charge));
      return { charge, replayed: false };
    });
  }

  charge(order: Order, key: string | null): { charge: Charge; replayed: boolean } {
    return this.chargeInTransaction(order, key);
  }

  chargedOrders(): string[] {
    return (this.db.prepare('SELECT order_id FROM charges ORDER BY seq').all() as { order_id: string }[]).map((r) => r.order_id);
  }

  close(): void {
    this.db.close();
  }
}

export interface ChargeReceiptOutcome {
  lives: SeedLife[];
  /** One entry per charge the provider made. */
  charges: string[];
  /** The receipts mailed: which charge each one is for. */
  receipts: string[];
  /** Activities that ran (not replayed from history), per life. */
  ran: string[][];
}

const WORKFLOW_ID = `order_flow:${ORDER.id}`;

function* orderFlow(provider: PaymentProvider, history: SqliteWorkflowStore, receipts: string[], ran: string[], keyed: boolean): Generator<RunEvent, void, void> {
  const clock = new SeedClock();
  // Activity 0: charge_card. The side effect lives in the provider; the record comes after it returns.
  let charge: Charge;
  const recordedCharge = history.recorded(WORKFLOW_ID, 0);
  if (recordedCharge !== undefined) {
    charge = JSON.parse(recordedCharge) as Charge; // restored from history, not re-executed
  } else {
    ran.push('charge_card');
    const fields = { callId: 'charge_card', tool: 'charge_card', step: 0 };
    yield clock.event('tool-start', 0, 'other', fields);
    const result = provider.charge(ORDER, keyed ? ORDER.id : null);
    charge = result.charge;
    if (!result.replayed) yield clock.event('shop-commit', TIMINGS.activityWaitMs, 'write-before-commit', { ...fields, write: true });
    yield clock.event('tool-result', result.replayed ? TIMINGS.activityWaitMs : 0, result.replayed ? 'write-before-commit' : 'gap', { ...fields, write: !result.replayed });
    history.record(WORKFLOW_ID, 0, JSON.stringify(charge));
    yield clock.event('step-recorded', TIMINGS.recordMs, 'gap', { step: 0 });
  }
  // Activity 1: send_receipt, from the charge (recorded or fresh).
  if (history.recorded(WORKFLOW_ID, 1) === undefined) {
    ran.push('send_receipt');
    const fields = { callId: 'send_receipt', tool: 'send_receipt', step: 1 };
    yield clock.event('tool-start', 0, 'other', fields);
    receipts.push(charge.chargeId);
    yield clock.event('shop-commit', TIMINGS.activityWaitMs, 'write-before-commit', { ...fields, write: true });
    yield clock.event('tool-result', 0, 'gap', { ...fields, write: true });
    history.record(WORKFLOW_ID, 1, JSON.stringify({ sentTo: charge.customer, receiptUrl: charge.receiptUrl }));
    yield clock.event('step-recorded', TIMINGS.recordMs, 'gap', { step: 1 });
  }
}

/** Runs the workflow under a kill schedule (one kill point per life). */
export function runChargeReceipt(options: { keyed: boolean; kills: readonly number[] }): ChargeReceiptOutcome {
  const provider = new PaymentProvider();
  const history = new SqliteWorkflowStore();
  const receipts: string[] = [];
  const ran: string[][] = [];
  try {
    const lives = runSeedLives(() => {
      const mine: string[] = [];
      ran.push(mine);
      return orderFlow(provider, history, receipts, mine, options.keyed);
    }, options.kills);
    return { lives, charges: provider.chargedOrders(), receipts, ran };
  } finally {
    provider.close();
    history.close();
  }
}

/** Kill points of the charge, found in an unkilled run: right after its commit, and right after its record. */
export function chargeKillPoints(keyed: boolean): { inTheGap: number; afterRecord: number } {
  const events = runChargeReceipt({ keyed, kills: [] }).lives[0]!.events;
  const commit = events.find((e) => e.kind === 'shop-commit' && e.callId === 'charge_card');
  const record = events.find((e) => e.kind === 'step-recorded' && e.step === 0);
  if (!commit || !record) throw new Error('the workflow has no recorded charge');
  return { inTheGap: commit.index, afterRecord: record.index };
}
