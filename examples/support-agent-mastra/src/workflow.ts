// The support workflow as it is first written: effects without keys.
import { readSupportEffects, supportWorkflow, type WorkflowContext } from './support-workflow.js';

export const createWorkflow = (ctx: WorkflowContext) => supportWorkflow(ctx, false);
export const readEffects = readSupportEffects;
