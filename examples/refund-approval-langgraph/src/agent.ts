// The refund approval as it is first written: effects without keys.
import { buildRefundApproval, readRefundEffects, type AgentContext } from './refund-approval.js';

export const createGraph = (ctx: AgentContext) => buildRefundApproval(ctx, { keys: false, noteWhenAsking: false });
export const readEffects = readRefundEffects;
