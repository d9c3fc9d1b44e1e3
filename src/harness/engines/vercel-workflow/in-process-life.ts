// A Vercel Workflow life inside killpoint's own process, on a thread of lives
// (src/harness/in-process/life-threads.ts): the child's life (life.ts) from the same bundles, its
// shop opened through the life's fence and its local world closed at the kill (in-process-life.ts
// of the harness: the private copy of the state folder, copied back at the kill point).
//
// Why a thread, and why a thread is retired after a life that did not run to its end: the SDK keeps
// the world in module state (setWorld, and the local world's storage cache) and the steps find
// killpoint's host on globalThis. A killed life's step that is still running would, once it
// resumes, write its record through whichever world is current: the next life's. So no life runs
// where a killed (or failed) one still has code: its thread is terminated after it, as its process
// would be, and a fresh thread loads the bundles again. A life that ran to its end has closed its
// world; its thread runs the next life with the SDK already loaded.

import { deserializeScenario, type SerializedScenario } from '../../../model/scenario-json.js';
import { shopThrough } from '../../in-process/fence.js';
import { runInProcessLife, type InProcessLife } from '../../in-process/in-process-life.js';
import { lifeOfJob, type LifeJob } from '../../in-process/life-job.js';
import { serveVercelThreadLives, worldHeldBy } from './thread-lives.js';
import type { VercelConfig } from './config.js';
import { runVercelLife, type LoadedBundles } from './life.js';
import { NotOneRun } from './world-run.js';

/** A life as data, sent to its thread. */
export interface VercelLifeJob extends LifeJob {
  scenario: SerializedScenario;
  config: VercelConfig;
}

/** The life a job describes, on the bundles loaded where it runs. */
export function vercelInProcessLife(job: VercelLifeJob, bundles: LoadedBundles): InProcessLife {
  return {
    ...lifeOfJob(job),
    engine: 'Vercel Workflow',
    isBadInput: (error) => error instanceof NotOneRun,
    badInputPhrase: 'its local world cannot be resumed',
    run: ({ emit, onPick }, fence, workDir) =>
      runVercelLife({
        scenario: deserializeScenario(job.scenario),
        config: job.config,
        stateDir: workDir,
        lifeIndex: job.lifeIndex,
        picks: [...job.picks],
        bundles,
        emit,
        onPick,
        openShop: shopThrough(fence),
        holdWorld: worldHeldBy(fence),
      }),
  };
}

/** The thread's side: serves lives on the bundles its entry loaded (child-bundle.ts). */
export function serveVercelLives(bundles: LoadedBundles): void {
  serveVercelThreadLives((job: VercelLifeJob, onCut) => runInProcessLife(vercelInProcessLife(job, bundles), onCut));
}
