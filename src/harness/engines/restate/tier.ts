// A Restate run's lives, for the one whole-run loop of process engines
// (src/harness/process/whole-run.ts): a fresh state folder with the scenario's shop, the run's own
// names in the session's server (identity.json: its service, the service's port, its key), then
// one child per life, the run's service, killed with SIGKILL right after its kill point, or (in
// process) one endpoint of killpoint's own per life, torn down there (in-process-life.ts).
//
// The run's durable state is in two places: its folder (the shop, the outbox) and the invocation's
// journal in the server. The journal cannot be copied into another invocation, so the explorer
// cannot start a life from a saved state: every schedule is run from scratch (the session offers
// no `lives`), each life repeating the lives before it.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Scenario } from '../../../model/scenario.js';
import { serializeScenario } from '../../../model/scenario-json.js';
import { Shop } from '../../../model/shop.js';
import type { TierLife, TierLifeRequest } from '../../process/process-lives.js';
import { readRunStores, runEngineLife } from '../../process/process-life.js';
import { lifeTimeoutFrom } from '../../life-time-limit.js';
import type { WholeRunTier } from '../../process/whole-run.js';
import type { WarmPool } from '../../process/warm-pool.js';
import { restateChild } from './bundle.js';
import type { RestateConfig } from './config.js';
import { servicePort } from './ports.js';
import { RESTATE_ENV, RESTATE_LIFE_TIMEOUT_VARIABLE, RESTATE_STATE_FILES, type RestateRunSpec, type RunIdentity } from './run-spec.js';
import type { RestateServer } from './server.js';

/**
 * The run's names, made once per run before its first life: a service name of its own (letters,
 * digits and underscores, as Restate wants a service name), a port for it, and the run's key.
 */
export async function identityOf(scenario: Scenario, stateDir: string): Promise<RunIdentity> {
  const file = join(stateDir, RESTATE_STATE_FILES.identity);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as RunIdentity;
  // Names, not data: a fresh token only keeps side-by-side runs in one server apart.
  const token = randomBytes(6).toString('hex');
  const run: RunIdentity = { serviceName: `Agent_${scenario.id.replace(/\W/g, '_')}_${token}`, servicePort: await servicePort(), runKey: `${scenario.id}-${token}` };
  writeFileSync(file, JSON.stringify(run));
  return run;
}

/** Where a Restate system's lives run: a child process each, or in killpoint's own process (in-process-life.ts). */
export type RestateLivesIn = 'process' | 'in-process';

/**
 * Where Restate lives run unless asked, the bundled agent's and a user's service's alike: in
 * process, proved equal to SIGKILL at every kill point of the 14 tasks and of the fixture services
 * (npm run differential:in-process).
 */
export const DEFAULT_RESTATE_TIER: RestateLivesIn = 'in-process';

/** The SDK in this process, loaded when its first in-process life starts. */
let inProcessModule: Promise<typeof import('./in-process-life.js')> | null = null;

/** For the in-process tier's own test only: the endpoint's connections left open at the kill (see in-process-life.ts). */
export interface RestateInProcessVariant {
  brokenEndpoint?: 'connections-left-open';
}

export function restateTier(config: RestateConfig, systemName: string, server: () => Promise<RestateServer>, warm: WarmPool | undefined, livesIn: RestateLivesIn, variant: RestateInProcessVariant = {}): WholeRunTier {
  return {
    name: `restate-${systemName}${livesIn === 'in-process' ? '-in-process' : ''}`,
    prepare: (scenario, stateDir) => {
      mkdirSync(stateDir, { recursive: true });
      Shop.create(scenario.shop, join(stateDir, RESTATE_STATE_FILES.shop)).close();
    },
    life: async (scenario: Scenario, request: TierLifeRequest): Promise<TierLife> => {
      const what = `${scenario.id} restate ${systemName} life ${request.lifeIndex}`;
      if (livesIn === 'in-process') {
        const [started, module, run] = await Promise.all([server(), (inProcessModule ??= import('./in-process-life.js')), identityOf(scenario, request.stateDir)]);
        return module.runRestateLifeInProcess({ scenario, config, what, server: started, run, request, timeoutMs: lifeTimeoutFrom(RESTATE_LIFE_TIMEOUT_VARIABLE, request), ...variant });
      }
      const [{ ingressUrl, adminUrl }, bundle, run] = await Promise.all([server(), restateChild(), identityOf(scenario, request.stateDir)]);
      const spec: RestateRunSpec = { scenario: serializeScenario(scenario), config, ingressUrl, adminUrl, run };
      const child = { engine: 'Restate', bundle, runFileVariable: RESTATE_ENV.run, picksVariable: RESTATE_ENV.picks, timeoutVariable: RESTATE_LIFE_TIMEOUT_VARIABLE };
      return runEngineLife(child, warm === undefined ? request : { ...request, warm }, what, spec);
    },
    stores: (scenario, stateDir) => readRunStores(join(stateDir, RESTATE_STATE_FILES.shop), join(stateDir, RESTATE_STATE_FILES.outbox), scenario.id),
  };
}
