// The support agent, its refund not keyed (graph.ts).
import { buildGraph, type GraphContext } from './graph.js';

export const createGraph = (ctx: GraphContext) => buildGraph(ctx, 'none');
