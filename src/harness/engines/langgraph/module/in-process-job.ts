// A life of a user's graph in killpoint's own process as data (a job): what runs it on killpoint's
// own thread and what runs it on a thread of its own (in-process-thread.ts) make the same life of
// it (system.ts), from the same bundle of the user's module.

import type { InProcessLife } from '../../../in-process/in-process-life.js';
import { BAD_SETUP_PHRASE, isSetupError } from '../../../user-module/setup-error.js';
import { lifeOfJob, type LifeJob } from '../../../in-process/life-job.js';
import { lifeWithTraffic } from '../../../user-module/traffic-life.js';
import type { LoadedGraphModule, runModuleLife as RunModuleLife } from './life.js';
import type { LangGraphModuleSpec } from './spec.js';

export interface ModuleLifeJob extends LifeJob {
  runFile: LangGraphModuleSpec;
}

/** killpoint's side of the life and the user's module, as loaded where the life runs. */
export interface ModuleLifeCode {
  runModuleLife: typeof RunModuleLife;
  loaded?: LoadedGraphModule;
}

/** LangGraph's own bad input from a life, beside the user's set-up: a checkpointer's file that is not one. */
const LANGGRAPH_SETUP_ERRORS = ['NotACheckpointDatabase'];

/** The life a job describes. */
export function moduleInProcessLife(job: ModuleLifeJob, code: ModuleLifeCode): InProcessLife {
  return {
    ...lifeOfJob(job),
    engine: 'LangGraph',
    isBadInput: (error) => isSetupError(error, LANGGRAPH_SETUP_ERRORS),
    badInputPhrase: BAD_SETUP_PHRASE,
    // Its traffic, played as in a process: a request the life makes after its kill point is still its own (traffic/life-traffic.ts).
    run: ({ emit, onPick }, fence, workDir) =>
      lifeWithTraffic(job.runFile.traffic, { stateDir: workDir, emit, passThrough: [] }, () =>
        code.runModuleLife({ spec: job.runFile, stateDir: workDir, lifeIndex: job.lifeIndex, picks: [...job.picks], emit, onPick, fence, ...(code.loaded === undefined ? {} : { loaded: code.loaded }) }),
      ),
  };
}
