// One life of a user's module with its traffic played by killpoint (traffic-target.ts): in a life
// that replays (the parent says which, traffic-recorder.ts), every request is answered from the
// cassette the parent read; in a life of the recording run, requests go to the real endpoints and are kept in the run's recording file,
// merged over its lives (the parent moves it to the cassette once the run has finished:
// traffic-recorder.ts). Writes go through the run's service ledger in the state folder. A request
// the recording does not hold ends the life at once (a verdict), one its endpoint did not answer
// while recording is bad input.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmitEvent } from '../process/child-main.js';
import { cassetteDigest, CassetteError, CASSETTE_FORMAT, CASSETTE_VERSION, parseCassette, writeCassette, type CassetteEntry } from '../traffic/cassette-file.js';
import { RecordingFailed, startLifeTraffic } from '../traffic/life-traffic.js';
import { Recording } from '../traffic/replay.js';
import { SERVICE_LEDGER_FILE } from '../traffic/service-ledger.js';
import { UserModuleSetupError } from './setup-error.js';
import type { ModuleTraffic } from './traffic-target.js';

/** Where the life runs: its state folder, its events, and the origins of its engine's own traffic (passed through). */
export interface TrafficLifePlace {
  stateDir: string;
  emit: EmitEvent;
  passThrough: readonly string[];
}

/** Runs `life` with its traffic played (or as it is, without a cassette). */
export async function lifeWithTraffic<T>(traffic: ModuleTraffic | undefined, { stateDir, emit, passThrough }: TrafficLifePlace, life: () => Promise<T>): Promise<T> {
  if (traffic === undefined) return life();
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
    if (!replaying) keepRecorded(traffic, session.recorded());
  }
}

/** The cassette the parent read: one missing, or replaced while the check runs, is bad input. */
function cassetteOf(traffic: ModuleTraffic): CassetteEntry[] {
  if (traffic.digest === undefined && traffic.recordingUnfinished !== undefined) throw new UserModuleSetupError(`--cassette ${traffic.arg}: nothing was recorded: the run without a kill that records it did not finish: ${traffic.recordingUnfinished}`);
  const bytes = existsSync(traffic.file) ? readFileSync(traffic.file) : null;
  if (bytes === null || cassetteDigest(bytes) !== traffic.digest) throw new UserModuleSetupError(`--cassette ${traffic.arg}: ${bytes === null ? 'removed' : 'replaced'} while the check ran (its lives replay the cassette it read first)`);
  try {
    return parseCassette(traffic.file, bytes.toString('utf8'), traffic.recordedFor).exchanges;
  } catch (error) {
    if (error instanceof CassetteError) throw new UserModuleSetupError(error.message);
    throw error;
  }
}

/** Adds this life's exchanges to the run's recording (an earlier life's are kept, each once). */
function keepRecorded(traffic: ModuleTraffic, exchanges: readonly CassetteEntry[]): void {
  const recording = new Recording();
  if (existsSync(traffic.recordTo)) for (const entry of (JSON.parse(readFileSync(traffic.recordTo, 'utf8')) as { exchanges: CassetteEntry[] }).exchanges) recording.add(entry);
  for (const entry of exchanges) recording.add(entry);
  writeCassette(traffic.recordTo, { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, recordedFor: traffic.recordedFor, exchanges: recording.exchanges });
}
