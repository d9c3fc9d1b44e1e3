// What a life of an agent behind the kill protocol is told of its traffic when killpoint plays it
// (--cassette with `killpoint harness`): whether it records or replays, which cassette (by the
// digest its parent read), where its run's ledger is, and where a request it could not answer is
// told back to killpoint. Carried in one variable of the life's environment, read by the
// interception loaded into a Node agent (agent-preload.ts); the local endpoints of an agent in
// another language (traffic-proxy.ts) take it in killpoint's own process.

import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { RecordedFor } from './cassette-file.js';

export const TRAFFIC_PLAN_ENV = 'KILLPOINT_TRAFFIC';

export interface AgentTrafficPlan {
  mode: 'record' | 'replay';
  /** The cassette's absolute path, and as the user gave it (named in messages). */
  cassetteFile: string;
  cassetteArg: string;
  /** The digest of the cassette the parent read (replay). */
  digest?: string;
  recordedFor: RecordedFor;
  /** Where the recording run's lives add what they recorded. */
  recordTo: string;
  /** The run's service ledger, in its state folder. */
  ledgerFile: string;
  /** Where a life tells killpoint the request that ended it (one JSON line {name, message}). */
  faultFile: string;
  modelUrls: string[];
  idempotencyHeaders: string[];
}

/** Why a life's traffic ended it: a request the recording does not hold (a verdict), or one killpoint could not record or answer (bad input). */
export interface TrafficFaultLine {
  name: string;
  message: string;
}

export function tellFault(file: string, error: Error): void {
  appendFileSync(file, `${JSON.stringify({ name: error.name, message: error.message } satisfies TrafficFaultLine)}\n`);
}

/** The first fault a life told, or null. */
export function faultOf(file: string): TrafficFaultLine | null {
  if (!existsSync(file)) return null;
  const line = readFileSync(file, 'utf8').split('\n').find((l) => l !== '');
  return line === undefined ? null : (JSON.parse(line) as TrafficFaultLine);
}
