// The support workflow, its refund keyed by a fresh random id (support-workflow.ts).
import { supportWorkflow } from './support-workflow.js';

export const createWorkflow = () => supportWorkflow('random');
