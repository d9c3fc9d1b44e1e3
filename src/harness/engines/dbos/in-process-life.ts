// One DBOS life inside killpoint's own process (the in-process tier, src/harness/in-process/): the
// same life as the child's (life.ts), on the same state folder and the same system database, DBOS
// launched here. Loaded only when the first such life starts, so DBOS stays out of a process that
// never runs one.
//
// DBOS is held by the life's fence (held-dbos.ts: its pool, its logger, its shutdown), and the shop
// is opened through it: at the kill point nothing of the life can write any more. Lives run one at
// a time (DBOS is one per process).

import type { Scenario } from '../../../model/scenario.js';
import { shopThrough } from '../../in-process/fence.js';
import { runInProcessLife } from '../../in-process/in-process-life.js';
import type { TierLife, TierLifeRequest } from '../../process/process-lives.js';
import type { DbosConfig } from './config.js';
import type { RunIdentity } from './run-spec.js';
import { runDbosLife } from './life.js';
import { dbosHeldBy } from './held-dbos.js';

export interface DbosInProcessJob {
  scenario: Scenario;
  config: DbosConfig;
  /** Names the life in errors. */
  what: string;
  /** The system database's URL for this life's connections. */
  databaseUrl: string;
  /** The names the state folder's lives launch with (its identity file). */
  run: RunIdentity;
  request: TierLifeRequest;
  timeoutMs: number;
  /** For the tier's own test only: the pool left open at the kill, so DBOS goes on recording for the killed life. */
  brokenPool?: 'left-open';
}

export function runDbosLifeInProcess(job: DbosInProcessJob): Promise<TierLife> {
  const { scenario, config, what, request, run } = job;
  return runInProcessLife({
    stateDir: request.stateDir,
    engine: 'DBOS',
    what,
    killAfter: request.killAfter,
    timeoutMs: job.timeoutMs,
    run: async ({ emit, onPick }, fence, workDir) => {
      const inProcess = await dbosHeldBy(fence, { what, databaseUrl: job.databaseUrl, backend: config.backend, ...(job.brokenPool === undefined ? {} : { brokenPool: job.brokenPool }) });
      return runDbosLife({
        scenario,
        config,
        stateDir: workDir,
        databaseUrl: job.databaseUrl,
        run,
        lifeIndex: request.lifeIndex,
        picks: [...request.picks],
        emit,
        onPick,
        inProcess,
        openShop: shopThrough(fence),
      });
    },
  });
}
