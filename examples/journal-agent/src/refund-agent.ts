// Dana's refund, by a hand-written agent: look up her order, refund one torn sleeping pad, answer.
// It saves a journal after every step and resumes from it after a kill. That leaves a gap: a kill
// after the refund commits and before the journal records it makes the resume refund again. Run
// with --keys and the refund carries a key built from the run and the step, so the repeat is
// answered from the key table instead of refunding twice.
//
// killpoint starts one process per life; startLife() reads what it was told (state folder, kill point).

import { idempotencyKey, refuse, startLife } from 'killpoint/agent';

const RUN_ID = 'dana-O-1042';
const keys = process.argv.includes('--keys');

const life = startLife();
if (life.delivered().length > 0) process.exit(0); // the task already ended: Dana has her answer

const store = life.openStore();
store.setup((db) => {
  db.exec('CREATE TABLE lines (order_id TEXT, line_id TEXT, quantity INTEGER, price_cents INTEGER, refunded_cents INTEGER)');
  db.prepare('INSERT INTO lines VALUES (?, ?, ?, ?, 0)').run('O-1042', 'L1', 2, 7950);
});

type Line = { quantity: number; price_cents: number; refunded_cents: number };
type Journal = { done: Record<string, unknown> };
const journal = life.journal<Journal>();
let saved: Journal | null;
try {
  saved = journal.load();
} catch (error) {
  life.fail((error as Error).message); // never resume from garbage, never silently start over
}
const done = saved?.done ?? {};

const steps = [
  { id: 'step-1', tool: 'get_order', run: () => store.db.prepare('SELECT * FROM lines WHERE order_id = ?').all('O-1042') },
  {
    id: 'step-2',
    tool: 'refund',
    run: () =>
      store.write({ kind: 'refund', target: 'O-1042/L1', args: { amountCents: 7950 }, key: keys ? idempotencyKey(RUN_ID, 'step-2') : null, callId: 'step-2' }, (db) => {
        const line = db.prepare('SELECT * FROM lines WHERE order_id = ? AND line_id = ?').get('O-1042', 'L1') as Line;
        if (line.refunded_cents + 7950 > line.quantity * line.price_cents) return refuse('over-refund');
        db.prepare('UPDATE lines SET refunded_cents = refunded_cents + 7950 WHERE order_id = ? AND line_id = ?').run('O-1042', 'L1');
        return { refundedCents: line.refunded_cents + 7950 };
      }),
  },
];

for (const step of steps) {
  if (step.id in done) continue;
  life.event('tool-start', { tool: step.tool, callId: step.id });
  done[step.id] = step.run();
  life.event('tool-result', { tool: step.tool, callId: step.id });
  journal.save({ done });
}

life.deliver("I'm sorry the pad arrived torn, Dana: I've refunded $79.50 for one sleeping pad.", RUN_ID);
life.close();
