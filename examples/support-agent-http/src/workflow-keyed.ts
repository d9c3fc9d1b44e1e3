// The support workflow, its refund keyed by DBOS.workflowID and DBOS.stepID (support-workflow.ts).
import { supportWorkflow } from './support-workflow.js';

export const createWorkflow = () => supportWorkflow('stable');
