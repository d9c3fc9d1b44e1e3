// The cassette made before anything is judged: where it is missing (or --record asks for it again),
// the first run a system is asked for is preceded by a run never killed whose lives send the agent's
// requests to the real endpoints (traffic-life.ts). Once that run has finished, its recording
// replaces the cassette in one rename, and every run after, the yardstick's two included, is
// answered from it: the endpoints are asked by that one run alone, once per cassette in a process
// (two systems on one cassette, a vitest suite's tests, share it). A recording run that does not
// finish leaves the cassette as it was, and is the run without a kill that did not finish.
//
// The parent decides what the lives do (ModuleTraffic.mode) and which cassette they replay (its
// digest): a life never records because a file is missing, and a cassette replaced while a check
// runs is refused rather than replayed half and half.

import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { noKills, type RunOutcome } from '../check/outcome.js';
import { SystemInputError } from '../engine.js';
import { cassetteDigest, CassetteError, parseCassette } from '../traffic/cassette-file.js';
import type { SessionRuns } from './session-runs.js';
import type { ModuleTraffic } from './traffic-target.js';

/** The recordings of this process, by cassette: each made once. */
const recordings = new Map<string, Promise<RunOutcome | null>>();

export class TrafficRecorder {
  constructor(private readonly traffic: ModuleTraffic | undefined) {}

  /**
   * A session's runs, each after the recording (once per cassette, whichever session asks first);
   * `recordRun` makes the recording run when it is not one of `runs` (an agent behind the kill
   * protocol runs its first run never killed twice, which a recording must not).
   */
  around(runs: SessionRuns, recordRun: SessionRuns = runs): SessionRuns {
    const after: SessionRuns = async (schedule, times) => {
      const recorded = await this.ready(() => recordRun(noKills(), times));
      if (recorded !== null && recorded.lives.at(-1)?.end !== 'finished') return recorded;
      return runs(schedule, times);
    };
    if (runs.close !== undefined) after.close = runs.close;
    return after;
  }

  /** The recording run's outcome for the session that made it, else null; the lives replay the cassette after it. */
  private async ready(run: () => Promise<RunOutcome>): Promise<RunOutcome | null> {
    const t = this.traffic;
    if (t === undefined || t.digest !== undefined) return null;
    const mine = !recordings.has(t.file) && (t.record || !existsSync(t.file));
    if (mine) recordings.set(t.file, record(t, run));
    const outcome = (await recordings.get(t.file)) ?? null;
    if (outcome !== null && outcome.lives.at(-1)?.end !== 'finished') {
      // A life run after it (a session's first life, explored by equivalence) has no cassette to replay: it says why.
      t.recordingUnfinished = outcome.lives.at(-1)?.error ?? `its life was ${outcome.lives.at(-1)?.end ?? 'never run'}`;
      return mine ? outcome : null;
    }
    t.mode = 'replay';
    t.digest = checkedDigest(t);
    return mine ? outcome : null;
  }
}

/** Runs the recording run; its recording replaces the cassette once it has finished. */
async function record(t: ModuleTraffic, run: () => Promise<RunOutcome>): Promise<RunOutcome> {
  rmSync(t.recordTo, { force: true });
  t.mode = 'record';
  try {
    const outcome = await run();
    if (outcome.lives.at(-1)?.end === 'finished' && existsSync(t.recordTo)) renameSync(t.recordTo, t.file);
    return outcome;
  } finally {
    t.mode = 'replay';
    rmSync(t.recordTo, { force: true });
  }
}

/** The digest of the cassette, read and checked (bad input names what is wrong with it). */
function checkedDigest(t: ModuleTraffic): string {
  const bytes = readFileSync(t.file);
  try {
    parseCassette(t.file, bytes.toString('utf8'), t.recordedFor);
  } catch (error) {
    if (error instanceof CassetteError) throw new SystemInputError(error.message);
    throw error;
  }
  return cassetteDigest(bytes);
}
