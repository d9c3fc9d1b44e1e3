// A LangGraph life in killpoint's own process as data (a job): what runs it on killpoint's own
// thread (run.ts) and what runs it on a thread of its own (in-process-thread.ts) make the same
// life of it, from the same engine code.

import type { Scenario } from '../../../model/scenario.js';
import type { SerializedScenario } from '../../../model/scenario-json.js';
import type { InProcessLife } from '../../in-process/in-process-life.js';
import { lifeOfJob, type LifeJob } from '../../in-process/life-job.js';
import type { LangGraphConfig } from './config.js';
import type { runLangGraphLife as RunLangGraphLife } from './life.js';

export interface LangGraphLifeJob extends LifeJob {
  scenario: SerializedScenario;
  config: LangGraphConfig;
}

/** The engine's side of the life, from the bundle loaded where the life runs. */
export interface LangGraphLifeCode {
  runLangGraphLife: typeof RunLangGraphLife;
  NotACheckpointDatabase: new (...args: never[]) => Error;
}

/** The life a job describes. */
export function langGraphInProcessLife(job: LangGraphLifeJob, scenario: Scenario, code: LangGraphLifeCode): InProcessLife {
  return {
    ...lifeOfJob(job),
    engine: 'LangGraph',
    isBadInput: (error) => error instanceof code.NotACheckpointDatabase,
    run: ({ emit, onPick }, fence, workDir) => code.runLangGraphLife({ scenario, config: job.config, stateDir: workDir, picks: [...job.picks], emit, onPick, fence }),
  };
}
