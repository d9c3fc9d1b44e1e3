// The support workflow: a refund and an email, two Mastra steps run in .parallel(), each recorded
// in the workflow's own ledger. Without keys, a kill after a step did its work and before Mastra's
// snapshot recorded it runs the step again; with the key run id + step id, the repeat does nothing.

import { createStep, createWorkflow } from '@mastra/core/workflows';
import { z } from 'zod';
import { openLedger } from './ledger.js';

/** What killpoint gives the module: a folder for the workflow's data, and the run's id. */
export interface WorkflowContext {
  dataDir: string;
  runId: string;
}

const refundInput = z.object({ orderId: z.string(), lineId: z.string(), amountCents: z.number(), email: z.string() });

export function supportWorkflow(ctx: WorkflowContext, keys: boolean) {
  const keyOf = (stepId: string) => (keys ? `${ctx.runId}:${stepId}` : null);
  const refund = createStep({
    id: 'refund',
    inputSchema: refundInput,
    outputSchema: z.string(),
    execute: async ({ inputData: r }) => {
      const ledger = openLedger(ctx.dataDir);
      ledger.record({ kind: 'refund', target: `${r.orderId}/${r.lineId}`, args: { amountCents: r.amountCents } }, keyOf('refund'));
      ledger.close();
      return `refunded ${r.amountCents} cents`;
    },
  });
  const email = createStep({
    id: 'email',
    inputSchema: refundInput,
    outputSchema: z.string(),
    execute: async ({ inputData: r }) => {
      const ledger = openLedger(ctx.dataDir);
      ledger.record({ kind: 'email', target: r.email, args: { subject: `Your refund for ${r.orderId}` } }, keyOf('email'));
      ledger.close();
      return `emailed ${r.email}`;
    },
  });
  const reply = createStep({
    id: 'reply',
    inputSchema: z.object({ refund: z.string(), email: z.string() }),
    outputSchema: z.string(),
    execute: async ({ inputData }) => `${inputData.refund} and ${inputData.email}`,
  });
  return createWorkflow({ id: 'support', inputSchema: refundInput, outputSchema: z.string() }).parallel([refund, email]).then(reply).commit();
}

export function readSupportEffects(ctx: WorkflowContext) {
  const ledger = openLedger(ctx.dataDir);
  try {
    return ledger.all();
  } finally {
    ledger.close();
  }
}
