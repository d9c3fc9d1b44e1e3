// The main of a thread that runs lives of a user's graph in killpoint's process
// (in-process/life-threads.ts): bundled with the user's module as its child is (user-module/bundle.ts
// calls startModuleChild with the module loaded), each job one life.

import { runInProcessLife } from '../../../in-process/in-process-life.js';
import { serveLives } from '../../../in-process/serve-lives.js';
import { moduleInProcessLife, type ModuleLifeJob } from './in-process-job.js';
import { runModuleLife, type LoadedGraphModule } from './life.js';
import { withSeededRandomness } from '../../../user-module/seeded-randomness.js';

export function startModuleChild(loaded?: LoadedGraphModule): void {
  serveLives((job: ModuleLifeJob, onCut) => withSeededRandomness(job.lifeIndex, () => runInProcessLife(moduleInProcessLife(job, { runModuleLife, ...(loaded === undefined ? {} : { loaded }) }), onCut)));
}
