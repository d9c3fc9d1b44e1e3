// Vercel Workflow's lives one at a time from a durable state (the seam's ProcessTier,
// src/harness/process/process-lives.ts), and so its whole runs too (whole-run.ts). A run's durable
// state is its folder: the shop's SQLite file, the outbox, and the local world's data folder
// (world/: the run, its steps, events and streams, as JSON files). The world's folder is declared
// as a folder of names (the digest of a state folder reads its files, not folders) and digested
// beside it, its ids and times made canonical (world-digest.ts); a copy of a state is a copy of the
// folder, the run's id kept (the keys are made of it, and nothing outside the folder names it).
//
// In process (in-process-life.ts), each life runs on a thread of lives from the same bundles, and
// a life's kill points are cut from one repeat of it (the folder copied after every event).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../../model/scenario.js';
import { Shop } from '../../../model/shop.js';
import { serializeScenario } from '../../../model/scenario-json.js';
import type { LifeCut, OutsideState, ProcessTier, TierLife, TierLifeRequest } from '../../process/process-lives.js';
import { readRunStores, runEngineLife } from '../../process/process-life.js';
import { lifeTimeoutFrom } from '../../life-time-limit.js';
import { lifeThreadsFor } from '../../in-process/life-threads.js';
import { lifeJobOf, type BrokenLife } from '../../in-process/life-job.js';
import { vercelBundles } from './bundles.js';
import { vercelChild, vercelThreadScript } from './child-bundle.js';
import type { VercelConfig } from './config.js';
import type { VercelLifeJob } from './in-process-life.js';
import { VW_ENV, VW_EXIT_BAD_INPUT, VW_LIFE_TIMEOUT_VARIABLE, VW_STATE_FILES, type VercelRunSpec } from './run-spec.js';
import { worldDigest } from './world-digest.js';

/** Where a Vercel Workflow system's lives run: a child process each, or on a thread of killpoint's process. */
export type VercelLivesIn = 'process' | 'in-process';

/**
 * Where Vercel Workflow lives run unless asked: on threads of killpoint's process, proved equal to
 * SIGKILL at every kill point of Dana's and Ivan's tasks under durable-agent and durable-agent+keys
 * (npm run differential:in-process), and agreeing with the scripted model at every kill point of
 * the 14 tasks as the processes do (npm run vercel-workflow -- --tier in-process).
 */
export const DEFAULT_VERCEL_TIER: VercelLivesIn = 'in-process';

const whatOf = (scenario: Scenario, config: VercelConfig, request: TierLifeRequest): string => `${scenario.id} vercel-workflow ${config.name} life ${request.lifeIndex}`;

/** One life in a child process, from the state in `stateDir`. */
async function vercelLife(scenario: Scenario, config: VercelConfig, request: TierLifeRequest): Promise<TierLife> {
  const spec: VercelRunSpec = { scenario: serializeScenario(scenario), config };
  const child = {
    engine: 'Vercel Workflow',
    bundle: await vercelChild(await vercelBundles()),
    runFileVariable: VW_ENV.run,
    picksVariable: VW_ENV.picks,
    timeoutVariable: VW_LIFE_TIMEOUT_VARIABLE,
    badInputExit: VW_EXIT_BAD_INPUT,
    badInputPhrase: 'its local world cannot be resumed',
  };
  return runEngineLife(child, request, whatOf(scenario, config, request), spec);
}

/** For the in-process tier's own test only: a kill that cuts nothing off, which the comparison with SIGKILL must catch. */
export type VercelInProcessVariant = Pick<BrokenLife, 'brokenKill'>;

/** One life on a thread of killpoint's process (at least one thread: the SDK's module state is never killpoint's own). */
async function vercelLifeInProcess(scenario: Scenario, config: VercelConfig, request: TierLifeRequest, variant: VercelInProcessVariant): Promise<TierLife> {
  const job: VercelLifeJob = {
    ...lifeJobOf(request, whatOf(scenario, config, request), lifeTimeoutFrom(VW_LIFE_TIMEOUT_VARIABLE, request), variant),
    scenario: serializeScenario(scenario),
    config,
  };
  const threads = lifeThreadsFor(await vercelThreadScript(await vercelBundles()), 1)!;
  return threads.run<TierLife, LifeCut>(job, request.onCut);
}

/** The world's folder, digested beside the folder's files; a copy of the folder copies it whole. */
const WORLD: OutsideState = {
  nothing: '',
  digest: async (stateDir) => worldDigest(join(stateDir, VW_STATE_FILES.world)),
  copy: async () => undefined,
  release: async () => undefined,
};

export function vercelTier(config: VercelConfig, livesIn: VercelLivesIn = DEFAULT_VERCEL_TIER, variant: VercelInProcessVariant = {}): ProcessTier {
  const inProcess = livesIn === 'in-process';
  return {
    name: `vercel-workflow-${config.name}${inProcess ? '-in-process' : ''}`,
    files: [
      { name: VW_STATE_FILES.shop, kind: 'sqlite' },
      { name: VW_STATE_FILES.outbox, kind: 'bytes' },
      { name: VW_STATE_FILES.world, kind: 'names' },
    ],
    // Fresh random keys are seeded by the life number.
    readsLifeIndex: config.keys === 'random',
    prepare: (scenario, stateDir) => {
      mkdirSync(stateDir, { recursive: true });
      Shop.create(scenario.shop, join(stateDir, VW_STATE_FILES.shop)).close();
    },
    ...(inProcess ? { cutsInOneLife: true } : {}),
    life: (scenario, request) => (inProcess ? vercelLifeInProcess(scenario, config, request, variant) : vercelLife(scenario, config, request)),
    stores: (scenario, stateDir) => readRunStores(join(stateDir, VW_STATE_FILES.shop), join(stateDir, VW_STATE_FILES.outbox), scenario.id),
    outside: WORLD,
  };
}
