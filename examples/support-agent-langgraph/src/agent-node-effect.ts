// The keyed support agent whose agent node also writes to the ledger, outside any tool.
import { buildSupportAgent, readSupportEffects, type AgentContext } from './support-agent.js';

export const createGraph = (ctx: AgentContext) => buildSupportAgent(ctx, { keys: true, noteInNode: true });
export const readEffects = readSupportEffects;
