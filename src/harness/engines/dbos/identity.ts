// A DBOS run's own names in the system database that every run of the process shares: its
// workflow id, application version and executor id, and the key its idempotency keys come from. A
// copy of a run's state (the explorer by equivalence, tier.ts) gets names of its own and keeps the
// run's key and first names (under which a user's workflow runs in every copy: run-names.ts).

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../../model/scenario.js';
import type { RowNames, RunIdentity } from './run-spec.js';

/** The file in a run's state folder that names its rows (see tier.ts). */
export const IDENTITY_FILE = 'identity.json';

/** The names of the rows a state folder's lives launch with. */
export function identityOf(stateDir: string): RunIdentity {
  return JSON.parse(readFileSync(join(stateDir, IDENTITY_FILE), 'utf8')) as RunIdentity;
}

/** A run's own names in the shared system database (see RunIdentity). */
export function runIdentity(scenario: Scenario): RunIdentity {
  return namesOfOwn((token) => `${scenario.id}-${token}`);
}

/** Names of its own for a copy of a run's state (the explorer by equivalence, tier.ts): the same run, its key and first names kept. */
export function copyIdentity(of: RunIdentity): RunIdentity {
  return namesOfOwn((token) => `${of.runKey}~${token}`, of);
}

function namesOfOwn(workflowIdOf: (token: string) => string, run?: RunIdentity): RunIdentity {
  const token = randomUUID().slice(0, 13);
  const names: RowNames = { workflowId: workflowIdOf(token), appVersion: `killpoint-${token}`, executorId: `killpoint-${token}` };
  return { ...names, runKey: run?.runKey ?? names.workflowId, runNames: run?.runNames ?? names };
}
