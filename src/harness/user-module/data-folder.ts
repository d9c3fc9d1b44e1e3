// The folder a user's agent keeps its own data in (ctx.dataDir: its ledger, its outbox), as part of
// a run's state: read whole by the state's digest (process/state-digest.ts, kind `folder`), so two
// kill points share a recovery only where the agent's data reads the same too.

import type { StateFile } from '../process/state-digest.js';

/** For a module tier's own tests only: a digest that leaves the data folder out, which the comparison with SIGKILL from scratch must catch. */
export interface DataFolderVariant {
  dataLeftOut?: true;
}

export function dataFolderFile(name: string, variant: DataFolderVariant = {}): StateFile {
  return { name, kind: variant.dataLeftOut ? 'names' : 'folder' };
}
