// The batch refund agent of the journal-plus-keys seed: five refund requests handled one after the
// other; after each request is finished (refund issued, customer answered) the journal records
// `last_done` = its index, and a restart resumes after the last one recorded. The refund moves
// money in a ledger that stands in for the payment provider. With `checkKey`, the refund tool
// derives the key `refund-<order>` and checks it in the ledger, in the same transaction that
// records a refund; without it, nothing stops a repeat.
//
// Fault model: a kill lands between two events; the ledger, the journal and the delivered replies
// survive it, nothing else does.

import Database from 'better-sqlite3';
import type { RunEvent } from '../../check/events.js';
import { runSeedLives, SeedClock, type SeedLife } from './lives.js';

export interface RefundRequest {
  orderId: string;
  cents: number;
  message: string;
}

export const REFUND_REQUESTS: readonly RefundRequest[] = [
  { orderId: 'O-1', cents: 1999, message: 'The mug arrived broken, please refund it.' },
  { orderId: 'O-2', cents: 4500, message: 'I was charged for an order I cancelled.' },
  { orderId: 'O-3', cents: 1250, message: 'Wrong size. I sent it back last week.' },
  { orderId: 'O-4', cents: 899, message: 'The package never arrived.' },
  { orderId: 'O-5', cents: 3200, message: 'I returned it, tracking says delivered to you.' },
];

const TIMINGS = { modelMs: 180, refundWaitMs: 150, journalMs: 0.13 } as const;

/** The system of record for refunds: where money moves, and where a key is checked. */
export class RefundLedger {
  private readonly db = new Database(':memory:');
  private readonly issueInTransaction: (orderId: string, cents: number, checkKey: boolean) => { issued: boolean; key: string };

  constructor() {
    this.db.exec('CREATE TABLE refunds (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, order_id TEXT NOT NULL, cents INTEGER NOT NULL)');
    const seen = this.db.prepare('SELECT 1 FROM refunds WHERE key = ?');
    const insert = this.db.prepare('INSERT INTO refunds (key, order_id, cents) VALUES (?, ?, ?)');
    this.issueInTransaction = this.db.transaction((orderId: string, cents: number, checkKey: boolean) => {
      const key = `refund-${orderId}`; // stable: derived from the order, not from the attempt
      if (checkKey && seen.get(key)) return { issued: false, key };
      insert.run(key, orderId, cents);
      return { issued: true, key };
    });
  }

  issue(orderId: string, cents: number, checkKey: boolean): { issued: boolean; key: string } {
    return this.issueInTransaction(orderId, cents, checkKey);
  }

  orders(): string[] {
    return (this.db.prepare('SELECT order_id FROM refunds ORDER BY seq').all() as { order_id: string }[]).map((r) => r.order_id);
  }

  close(): void {
    this.db.close();
  }
}

export interface BatchRefundOutcome {
  lives: SeedLife[];
  /** Order ids in the ledger, one per refund issued, in order. */
  refunds: string[];
  /** The reply each customer received, by order. */
  replies: { orderId: string; text: string }[];
  /** Where each life after the first resumed (the index of its first request). */
  resumedAt: number[];
}

function* batchLife(ledger: RefundLedger, journal: number[], replies: BatchRefundOutcome['replies'], resumedAt: number[], lifeIndex: number, checkKey: boolean): Generator<RunEvent, void, void> {
  const clock = new SeedClock();
  const start = (journal.at(-1) ?? -1) + 1; // resume after the last finished request
  if (lifeIndex > 0) resumedAt.push(start);
  for (let i = start; i < REFUND_REQUESTS.length; i++) {
    const { orderId, cents } = REFUND_REQUESTS[i]!;
    const fields = { callId: `issue_refund:${orderId}`, tool: 'issue_refund' };
    yield clock.event('model-request', 0, 'other', { modelCall: 2 * i });
    yield clock.event('model-reply', TIMINGS.modelMs, 'model', { modelCall: 2 * i });
    yield clock.event('tool-start', 0, 'other', fields);
    const { issued } = ledger.issue(orderId, cents, checkKey);
    if (issued) yield clock.event('shop-commit', TIMINGS.refundWaitMs, 'write-before-commit', { ...fields, write: true });
    yield clock.event('tool-result', issued ? 0 : TIMINGS.refundWaitMs, issued ? 'gap' : 'write-before-commit', { ...fields, write: issued });
    // The scripted model answers from the tool's result: a refund issued now, or one found already issued.
    const text = issued
      ? `Your refund of $${(cents / 100).toFixed(2)} for order ${orderId} has been issued in full.`
      : `Your refund for order ${orderId} was already issued; nothing was charged again.`;
    yield clock.event('model-request', 0, 'gap', { modelCall: 2 * i + 1 });
    yield clock.event('model-reply', TIMINGS.modelMs, 'gap', { modelCall: 2 * i + 1, final: true });
    replies.push({ orderId, text });
    yield clock.event('answer-delivered', 0, 'gap');
    journal.push(i); // progress is recorded only after the request is finished
    yield clock.event('journal-save', TIMINGS.journalMs, 'gap');
  }
}

/** Runs the batch under a kill schedule (one kill point per life). */
export function runBatchRefunds(options: { checkKey: boolean; kills: readonly number[] }): BatchRefundOutcome {
  const ledger = new RefundLedger();
  const journal: number[] = [];
  const replies: BatchRefundOutcome['replies'] = [];
  const resumedAt: number[] = [];
  try {
    const lives = runSeedLives((lifeIndex) => batchLife(ledger, journal, replies, resumedAt, lifeIndex, options.checkKey), options.kills);
    return { lives, refunds: ledger.orders(), replies, resumedAt };
  } finally {
    ledger.close();
  }
}

/** The kill point right after the ledger records the refund for `orderId` (the seed's CRASH_AFTER_REFUND). */
export function killAfterRefundOf(orderId: string, checkKey: boolean): number {
  const events = runBatchRefunds({ checkKey, kills: [] }).lives[0]!.events;
  const commit = events.find((e) => e.kind === 'shop-commit' && e.callId === `issue_refund:${orderId}`);
  if (!commit) throw new Error(`no refund for ${orderId} in the batch`);
  return commit.index;
}
