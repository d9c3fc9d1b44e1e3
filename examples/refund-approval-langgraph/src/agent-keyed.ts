// The refund approval with its effects keyed by thread, order and line.
import { buildRefundApproval, readRefundEffects, type AgentContext } from './refund-approval.js';

export const createGraph = (ctx: AgentContext) => buildRefundApproval(ctx, { keys: true, noteWhenAsking: false });
export const readEffects = readRefundEffects;
