// One life of a user's module with its traffic played by killpoint (traffic-target.ts): in a life
// that replays (the parent says which, traffic-recorder.ts), every request is answered from the
// cassette the parent read; in a life of the recording run, requests go to the real endpoints and are kept in the run's recording file,
// merged over its lives (the parent moves it to the cassette once the run has finished:
// traffic-recorder.ts). Writes go through the run's service ledger in the state folder. A request
// the recording does not hold ends the life at once (a verdict), one its endpoint did not answer
// while recording is bad input.

import { join } from 'node:path';
import type { EmitEvent } from '../process/child-main.js';
import { cassetteAsRead, CassetteError, type CassetteEntry } from '../traffic/cassette-file.js';
import { addToRecording } from '../traffic/recording-file.js';
import { RecordingFailed, startLifeTraffic } from '../traffic/life-traffic.js';
import { SERVICE_LEDGER_FILE } from '../traffic/service-ledger.js';
import { watchedLife } from '../traffic/unanswered.js';
import { UserModuleSetupError } from './setup-error.js';
import type { ModuleTraffic } from './traffic-target.js';

/** Where the life runs: its state folder, its events, and the origins of its engine's own traffic (passed through). */
export interface TrafficLifePlace {
  stateDir: string;
  emit: EmitEvent;
  passThrough: readonly string[];
}

/** Runs `life` with its traffic played (or, without a cassette, as it is, watched: an endpoint that does not answer is named). */
export async function lifeWithTraffic<T>(traffic: ModuleTraffic | undefined, { stateDir, emit, passThrough }: TrafficLifePlace, life: () => Promise<T>): Promise<T> {
  if (traffic === undefined) return watchedLife(passThrough, life);
  const replaying = traffic.mode === 'replay';
  const cassette = replaying ? cassetteOf(traffic) : undefined;
  const session = startLifeTraffic({
    mode: replaying ? 'replay' : 'record',
    ...(cassette === undefined ? {} : { cassette }),
    cassetteFile: traffic.arg,
    ledgerFile: join(stateDir, SERVICE_LEDGER_FILE),
    emit,
    modelUrls: traffic.modelUrls,
    idempotencyHeaders: traffic.idempotencyHeaders,
    passThrough,
  });
  try {
    return await Promise.race([session.within(life), session.failure]);
  } catch (error) {
    if (error instanceof RecordingFailed) throw new UserModuleSetupError(`--cassette ${traffic.arg}: ${error.message}`);
    throw error;
  } finally {
    session.stop();
    if (!replaying) addToRecording(traffic.recordTo, traffic.recordedFor, session.recorded());
  }
}

/** The cassette the parent read: one missing, or replaced while the check runs, is bad input. */
function cassetteOf(traffic: ModuleTraffic): CassetteEntry[] {
  if (traffic.digest === undefined && traffic.recordingUnfinished !== undefined) throw new UserModuleSetupError(`--cassette ${traffic.arg}: nothing was recorded: the run without a kill that records it did not finish: ${traffic.recordingUnfinished}`);
  try {
    return cassetteAsRead(traffic.file, traffic.arg, traffic.digest, traffic.recordedFor);
  } catch (error) {
    if (error instanceof CassetteError) throw new UserModuleSetupError(error.message);
    throw error;
  }
}
