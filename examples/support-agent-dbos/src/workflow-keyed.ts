// The support workflow with its effects keyed by workflow id + step number.
import { readSupportEffects, supportWorkflow, type WorkflowContext } from './support-workflow.js';

export const createWorkflow = (ctx: WorkflowContext) => supportWorkflow(ctx, true);
export const readEffects = readSupportEffects;
