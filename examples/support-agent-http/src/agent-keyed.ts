// The support agent, its refund keyed by the thread and the tool call (graph.ts).
import { buildGraph, type GraphContext } from './graph.js';

export const createGraph = (ctx: GraphContext) => buildGraph(ctx, 'stable');
