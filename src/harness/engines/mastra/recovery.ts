// One life's run of a Mastra workflow, as Mastra recovers it, for the bundled agent and a user's
// workflow alike. The life opens Mastra on the run's storage (@mastra/libsql on a file: URL in the
// state folder) and recovers as Mastra does (restartAllActiveWorkflowRuns): a run whose snapshot is
// running or waiting is restarted with run.restart(), which resumes at the step its snapshot says
// is active; a run with no snapshot yet is started. A run whose snapshot is still `pending` (killed
// right after Mastra created it, before its first step) is one Mastra's own recovery does not
// list: the life starts it again under its run id, as the caller's retried request would. Any
// other status (`bailed`: see config.ts) is restart()'s to refuse, and the life crashes saying so.

import { Mastra } from '@mastra/core/mastra';
import type { Workflow } from '@mastra/core/workflows';
import { LibSQLStore } from '@mastra/libsql';
import type { EmitEvent } from '../../process/child-main.js';
import { reportSnapshots, type RecordOf } from './snapshots.js';

export interface RunInStorage {
  /** The libSQL file that holds the run's snapshot. */
  storageFile: string;
  workflow: Workflow;
  runId: string;
  input: unknown;
  emit: EmitEvent;
  /** Which steps' records are events of their own (snapshots.ts). */
  recordOf: RecordOf;
}

/** Runs (or restarts) the run to its end and answers its result; a run that does not succeed is an error. */
export async function runAsMastraRecovers(given: RunInStorage): Promise<unknown> {
  const storage = new LibSQLStore({ id: 'killpoint', url: `file:${given.storageFile}` });
  const mastra = new Mastra({ workflows: { workflow: given.workflow }, storage, logger: false });
  await storage.init(); // its tables, made once (Mastra would make them at its first write)
  const store = (await storage.getStore('workflows'))!;
  const before = await store.loadWorkflowSnapshot({ workflowName: given.workflow.id, runId: given.runId });
  reportSnapshots(store, before, given.emit, given.recordOf);
  const run = await mastra.getWorkflow('workflow').createRun({ runId: given.runId });
  const result = before === null || before.status === 'pending' ? await run.start({ inputData: given.input }) : await run.restart();
  if (result.status !== 'success') {
    const error = result.status === 'failed' ? `: ${(result as { error?: Error }).error?.message ?? 'no error given'}` : '';
    throw new Error(`mastra: the run ended ${result.status}${error}`);
  }
  return result.result;
}
