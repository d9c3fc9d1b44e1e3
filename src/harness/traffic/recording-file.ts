// A run's recording as it grows, life by life (record mode): each life's exchanges are added to the
// file its run records to, an earlier life's kept, each exchange once (replay.ts's Recording). Apart
// from cassette-file.ts, which reads and writes a cassette and knows nothing of how one is matched.

import { existsSync, readFileSync } from 'node:fs';
import { CASSETTE_FORMAT, CASSETTE_VERSION, writeCassette, type CassetteEntry, type RecordedFor } from './cassette-file.js';
import { Recording } from './replay.js';

/** Adds a life's exchanges to its run's recording in `recordTo` (an earlier life's are kept, each once). */
export function addToRecording(recordTo: string, recordedFor: RecordedFor, exchanges: readonly CassetteEntry[]): void {
  const recording = new Recording();
  if (existsSync(recordTo)) for (const entry of (JSON.parse(readFileSync(recordTo, 'utf8')) as { exchanges: CassetteEntry[] }).exchanges) recording.add(entry);
  for (const entry of exchanges) recording.add(entry);
  writeCassette(recordTo, { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, recordedFor, exchanges: recording.exchanges });
}
