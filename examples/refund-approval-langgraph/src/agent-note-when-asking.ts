// Keyed, but the node that asks emails "we are looking at it" before it waits: resumed, it runs
// again from its start, and the email goes a second time without any crash.
import { buildRefundApproval, readRefundEffects, type AgentContext } from './refund-approval.js';

export const createGraph = (ctx: AgentContext) => buildRefundApproval(ctx, { keys: true, noteWhenAsking: true });
export const readEffects = readRefundEffects;
