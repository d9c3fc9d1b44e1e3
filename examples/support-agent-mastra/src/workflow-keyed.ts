// The support workflow with its effects keyed by run id + step id.
import { readSupportEffects, supportWorkflow, type WorkflowContext } from './support-workflow.js';

export const createWorkflow = (ctx: WorkflowContext) => supportWorkflow(ctx, true);
export const readEffects = readSupportEffects;
