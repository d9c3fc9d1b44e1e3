// The support agent with its effects keyed by thread id + tool call id.
import { buildSupportAgent, readSupportEffects, type AgentContext } from './support-agent.js';

export const createGraph = (ctx: AgentContext) => buildSupportAgent(ctx, { keys: true, noteInNode: false });
export const readEffects = readSupportEffects;
