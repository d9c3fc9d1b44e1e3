// The support agent, its refund keyed by a fresh random id (graph.ts).
import { buildGraph, type GraphContext } from './graph.js';

export const createGraph = (ctx: GraphContext) => buildGraph(ctx, 'random');
