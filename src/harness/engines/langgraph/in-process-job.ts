// A LangGraph life in killpoint's own process as data (a job): what runs it on killpoint's own
// thread (run.ts) and what runs it on a thread of its own (in-process-thread.ts) make the same
// life of it, from the same engine code.

import type { Scenario } from '../../../model/scenario.js';
import type { SerializedScenario } from '../../../model/scenario-json.js';
import type { InProcessLife } from '../../in-process/in-process-life.js';
import type { ThreadJob } from '../../in-process/life-threads.js';
import type { LangGraphConfig } from './config.js';
import type { runLangGraphLife as RunLangGraphLife } from './life.js';

export interface LangGraphLifeJob extends ThreadJob {
  scenario: SerializedScenario;
  config: LangGraphConfig;
  stateDir: string;
  killAfter: number | null;
  picks: number[];
  cutInto?: string;
  brokenKill?: 'life-runs-on';
  brokenCopy?: 'one-event-late';
}

/** The engine's side of the life, from the bundle loaded where the life runs. */
export interface LangGraphLifeCode {
  runLangGraphLife: typeof RunLangGraphLife;
  NotACheckpointDatabase: new (...args: never[]) => Error;
}

/** The life a job describes. */
export function langGraphInProcessLife(job: LangGraphLifeJob, scenario: Scenario, code: LangGraphLifeCode): InProcessLife {
  return {
    engine: 'LangGraph',
    what: job.what,
    killAfter: job.killAfter,
    timeoutMs: job.timeoutMs,
    isBadInput: (error) => error instanceof code.NotACheckpointDatabase,
    stateDir: job.stateDir,
    run: ({ emit, onPick }, fence, workDir) => code.runLangGraphLife({ scenario, config: job.config, stateDir: workDir, picks: [...job.picks], emit, onPick, fence }),
    ...(job.cutInto === undefined ? {} : { cutInto: job.cutInto }),
    ...(job.brokenKill === undefined ? {} : { brokenKill: job.brokenKill }),
    ...(job.brokenCopy === undefined ? {} : { brokenCopy: job.brokenCopy }),
  };
}
