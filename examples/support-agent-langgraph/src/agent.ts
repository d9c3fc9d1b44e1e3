// The support agent as it is first written: effects without keys.
import { buildSupportAgent, readSupportEffects, type AgentContext } from './support-agent.js';

export const createGraph = (ctx: AgentContext) => buildSupportAgent(ctx, { keys: false, noteInNode: false });
export const readEffects = readSupportEffects;
