// A life of a user's Vercel workflow inside killpoint's own process, on a thread of lives
// (in-process/life-threads.ts) started from the user's module bundled with this file as its main
// (user-module/bundle.ts calls startModuleChild with the module loaded): the child's life
// (life.ts), in a private copy of the run's folder published at the kill point
// (in-process/in-process-life.ts), its local world closed at the kill. As for the bundled
// workflows (../in-process-life.ts), the SDK keeps its world in module state, so a thread whose life
// was killed or failed runs no other life: a fresh thread takes the next one.

import { lifeOfJob, type LifeJob } from '../../../in-process/life-job.js';
import { runInProcessLife, type InProcessLife } from '../../../in-process/in-process-life.js';
import { serveVercelThreadLives, worldHeldBy } from '../thread-lives.js';
import type { BundledModule } from '../../../user-module/load.js';
import { BAD_SETUP_PHRASE, isSetupError } from '../../../user-module/setup-error.js';
import { NotOneRun } from '../world-run.js';
import { runVercelModuleLife } from './life.js';
import { withSeededRandomness } from '../../../user-module/seeded-randomness.js';
import { lifeWithTraffic } from '../../../user-module/traffic-life.js';
import type { VercelModuleRunFile } from './spec.js';

/** A life as data, sent to its thread. */
export interface VercelModuleLifeJob extends LifeJob {
  runFile: VercelModuleRunFile;
}

/** The life a job describes, with the module as the thread's bundle loaded it. */
export function vercelModuleInProcessLife(job: VercelModuleLifeJob, loaded: BundledModule | undefined): InProcessLife {
  return {
    ...lifeOfJob(job),
    engine: 'Vercel Workflow',
    // What the module's child says of the same errors (child-main.ts): the user's set-up, or a world that is not one run's.
    isBadInput: (error) => isSetupError(error) || error instanceof NotOneRun,
    badInputPhrase: BAD_SETUP_PHRASE,
    // Its traffic, played as in a process: a request the life makes after its kill point is still its own (traffic/life-traffic.ts).
    run: ({ emit, onPick }, fence, workDir) =>
      lifeWithTraffic(job.runFile.traffic, { stateDir: workDir, emit, passThrough: [] }, () =>
        runVercelModuleLife({
          spec: job.runFile,
          ...(loaded === undefined ? {} : { loaded }),
          stateDir: workDir,
          lifeIndex: job.lifeIndex,
          picks: [...job.picks],
          emit,
          onPick,
          holdWorld: worldHeldBy(fence),
        }),
      ),
  };
}

/** The thread's main: serves lives of the module it was bundled with. */
export function startModuleChild(loaded?: BundledModule): void {
  serveVercelThreadLives((job: VercelModuleLifeJob, onCut) => withSeededRandomness(job.lifeIndex, () => runInProcessLife(vercelModuleInProcessLife(job, loaded), onCut)));
}
