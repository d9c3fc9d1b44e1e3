// The cassette made before anything is judged: where it is missing (or --record asks for it again),
// the first run a system is asked for is preceded by a run never killed whose lives send the agent's
// requests to the real endpoints (traffic-life.ts). Once that run has finished, its recording
// becomes the cassette and every run after, the yardstick's two included, is answered from it: the
// endpoints are asked by that one run alone. A recording run that does not finish leaves the
// cassette as it was, and is the run without a kill that did not finish.

import { existsSync, renameSync, rmSync } from 'node:fs';
import { noKills, type RunOutcome } from '../check/outcome.js';
import { SystemInputError } from '../engine.js';
import { CassetteError, readCassette } from '../traffic/cassette-file.js';
import type { SessionRuns } from './system.js';
import type { ModuleTraffic } from './traffic-target.js';

export class TrafficRecorder {
  private recording: Promise<RunOutcome | null> | null = null;

  constructor(private readonly traffic: ModuleTraffic | undefined) {}

  /** A session's runs, each after the recording (once per system, whichever session asks first). */
  around(runs: SessionRuns): SessionRuns {
    const after: SessionRuns = async (schedule, times) => {
      const recorded = await (this.recording ??= this.record(() => runs(noKills(), times)));
      if (recorded !== null && recorded.lives.at(-1)?.end !== 'finished') return recorded;
      return runs(schedule, times);
    };
    if (runs.close !== undefined) after.close = runs.close;
    return after;
  }

  /** The recording run's outcome, or null when the cassette is there to replay (checked first). */
  private async record(run: () => Promise<RunOutcome>): Promise<RunOutcome | null> {
    const t = this.traffic;
    if (t === undefined) return null;
    if (!t.record && existsSync(t.file)) {
      mustReadCassette(t);
      return null;
    }
    // --record: the cassette there is set aside while the run records, and put back if it fails.
    const aside = existsSync(t.file) ? `${t.recordTo}.before` : null;
    if (aside !== null) renameSync(t.file, aside);
    rmSync(t.recordTo, { force: true });
    let outcome: RunOutcome | undefined;
    try {
      outcome = await run();
    } finally {
      const finished = outcome?.lives.at(-1)?.end === 'finished' && existsSync(t.recordTo);
      if (finished) renameSync(t.recordTo, t.file);
      rmSync(t.recordTo, { force: true });
      if (aside !== null) finished ? rmSync(aside, { force: true }) : renameSync(aside, t.file);
    }
    return outcome;
  }
}

function mustReadCassette(t: ModuleTraffic): void {
  try {
    readCassette(t.file, t.recordedFor);
  } catch (error) {
    if (error instanceof CassetteError) throw new SystemInputError(error.message);
    throw error;
  }
}
