// The support workflow: a refund and an email, two DBOS steps run in parallel, each recorded in the
// workflow's own ledger. Without keys, a kill after a step did its work and before DBOS recorded it
// runs the step again; with the key workflow id + step number (DBOS.workflowID and DBOS.stepID, as
// DBOS advises: killpoint runs every life under the run's own workflow id), the repeat does nothing.

import { DBOS } from '@dbos-inc/dbos-sdk';
import { openLedger } from './ledger.js';

/** What killpoint gives the module: a folder for the workflow's data, and the workflow's id (DBOS.workflowID's, in every life). */
export interface WorkflowContext {
  dataDir: string;
  workflowId: string;
}

interface Refund {
  orderId: string;
  lineId: string;
  amountCents: number;
  email: string;
}

export function supportWorkflow(ctx: WorkflowContext, keys: boolean) {
  const ledger = openLedger(ctx.dataDir);
  const keyOfStep = () => (keys ? `${DBOS.workflowID}:${DBOS.stepID}` : null);
  const refund = DBOS.registerStep(async (r: Refund) => {
    ledger.record({ kind: 'refund', target: `${r.orderId}/${r.lineId}`, args: { amountCents: r.amountCents } }, keyOfStep());
    return `refunded ${r.amountCents} cents`;
  }, { name: 'refund' });
  const email = DBOS.registerStep(async (r: Refund) => {
    ledger.record({ kind: 'email', target: r.email, args: { subject: `Your refund for ${r.orderId}` } }, keyOfStep());
    return `emailed ${r.email}`;
  }, { name: 'email' });
  return DBOS.registerWorkflow(async (r: Refund) => (await Promise.all([refund(r), email(r)])).join(' and '), { name: 'support' });
}

export function readSupportEffects(ctx: WorkflowContext) {
  const ledger = openLedger(ctx.dataDir);
  try {
    return ledger.all();
  } finally {
    ledger.close();
  }
}
