// A user's workflow explored by equivalence runs each copy of a state under a DBOS workflow id of
// its own; what the workflow keeps must not depend on that id (system.ts).

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SystemInputError } from '../../../engine.js';
import { filesUnder } from '../../../process/folder-files.js';
import { identityOf } from '../identity.js';
import { DBOS_MODULE_FILES } from './spec.js';

/**
 * A copy of a state runs its workflow under an id of its own (DBOS's rows of every copy share one
 * system database), while ctx.workflowId is the run's key in every copy. The copy's id found in
 * the workflow's data means the workflow wrote DBOS.workflowID there (a key made of it, say): its
 * lives would then differ from a run's lives for no fault of the workflow (a key that no longer
 * matches after a kill), so it is refused, naming the fix.
 */
export function mustNotHoldCopysId(stateDir: string, moduleArg: string): void {
  const run = identityOf(stateDir);
  if (run.workflowId === run.runKey) return;
  const id = Buffer.from(run.workflowId);
  const holder = filesUnder(join(stateDir, DBOS_MODULE_FILES.data)).find((file) => readFileSync(file).includes(id));
  if (holder === undefined) return;
  throw new SystemInputError(
    `${moduleArg}: the workflow's data (${relative(stateDir, holder)}) holds the id DBOS runs it under (DBOS.workflowID), which killpoint gives each copy of a state it explores; key its effects with ctx.workflowId (the run's key, the same in every life) and DBOS.stepID`,
  );
}
