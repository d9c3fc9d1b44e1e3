// The support workflow, its refund not keyed (support-workflow.ts).
import { supportWorkflow } from './support-workflow.js';

export const createWorkflow = () => supportWorkflow('none');
