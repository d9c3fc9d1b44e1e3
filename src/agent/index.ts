// killpoint/agent: what a TypeScript agent of your own calls to be checked by killpoint. Start the
// life, record an event at each moment worth killing after, send writes through the store (with a
// key built from the run and the step), deliver the answer through the outbox.
//
//   const life = startLife();
//   const store = life.openStore();
//   store.setup((db) => db.exec('CREATE TABLE refunds (order_id TEXT, amount_cents INTEGER)'));
//   life.event('tool-start', { tool: 'refund', callId: 'step-2' });
//   store.write({ kind: 'refund', target: 'O-1/L1', args, key: idempotencyKey(runId, 'step-2'), callId: 'step-2' }, (db) => ...);

export { AgentLife, startLife } from './life.js';
export { AgentUsageError } from './usage-error.js';
export { AgentStore, idempotencyKey, refuse, type Refusal, type WriteResult, type WriteSpec } from './store.js';
export { JsonJournal } from './journal.js';
export { ENV as KILLPOINT_ENV, EXIT_FAILED } from '../harness/process/protocol.js';
