// Runs a scenario on a DBOS system under a kill schedule: the backend's system database (started
// and prepared once per process), a fresh state folder with the scenario's shop and the run's own
// DBOS names, then one child process per life, each killing itself with SIGKILL right after its
// kill point; what the stores hold at the end. The lives are the tier's (tier.ts), the whole run
// the harness's (src/harness/process/whole-run.ts). DBOS is loaded only in the children: the
// parent stays light.

import type { RunOutcome, Schedule } from '../../check/outcome.js';
import type { Scenario } from '../../../model/scenario.js';
import { runWholeInProcesses } from '../../process/whole-run.js';
import type { DbosConfig } from './config.js';
import { dbosTier } from './tier.js';

export function runDbos(scenario: Scenario, config: DbosConfig, systemName: string, schedule: Schedule): Promise<RunOutcome> {
  return runWholeInProcesses(dbosTier(config, systemName), scenario, systemName, schedule);
}
