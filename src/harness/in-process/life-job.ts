// What every engine's in-process life is sent as data (a job), whether it runs on killpoint's own
// thread or on a thread of lives: the tier's request (its folder, its kill point, its picks, where
// its cuts go) and the broken variants the tier's own tests ask for. An engine's job adds its
// scenario and configuration; both sides of the thread build and read this part alike.

import type { TierLifeRequest } from '../process/process-lives.js';
import type { InProcessLife } from './in-process-life.js';
import type { ThreadJob } from './life-threads.js';

/** Variants of the in-process tier for its own tests (in-process-life.ts says what each breaks). */
export interface BrokenLife {
  brokenKill?: 'life-runs-on';
  brokenCopy?: 'one-event-late';
}

export interface LifeJob extends ThreadJob, BrokenLife {
  stateDir: string;
  lifeIndex: number;
  killAfter: number | null;
  picks: number[];
  cutInto?: string;
}

/** The request's part of a job, with the life's name, its time limit and any broken variant. */
export function lifeJobOf(request: TierLifeRequest, what: string, timeoutMs: number, broken: BrokenLife = {}): LifeJob {
  return {
    what,
    timeoutMs,
    stateDir: request.stateDir,
    lifeIndex: request.lifeIndex,
    killAfter: request.killAfter,
    picks: [...request.picks],
    ...(request.cutInto === undefined ? {} : { cutInto: request.cutInto }),
    ...(broken.brokenKill === undefined ? {} : { brokenKill: broken.brokenKill }),
    ...(broken.brokenCopy === undefined ? {} : { brokenCopy: broken.brokenCopy }),
  };
}

/** The job's part of the life that runs it; the engine adds its name, its run and its bad input. */
export function lifeOfJob(job: LifeJob): Pick<InProcessLife, 'what' | 'timeoutMs' | 'stateDir' | 'killAfter' | 'cutInto' | 'brokenKill' | 'brokenCopy'> {
  return {
    what: job.what,
    timeoutMs: job.timeoutMs,
    stateDir: job.stateDir,
    killAfter: job.killAfter,
    ...(job.cutInto === undefined ? {} : { cutInto: job.cutInto }),
    ...(job.brokenKill === undefined ? {} : { brokenKill: job.brokenKill }),
    ...(job.brokenCopy === undefined ? {} : { brokenCopy: job.brokenCopy }),
  };
}
