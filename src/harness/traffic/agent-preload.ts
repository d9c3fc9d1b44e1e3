// Loaded into a Node agent behind the kill protocol before its own code (NODE_OPTIONS=--import,
// set by killpoint for every life when --cassette is given): the interception of life-traffic.ts,
// the whole process being one life. Its events go into the life's events file beside the agent's
// own (shared-events.ts), and the event at the kill point is followed by SIGKILL, as the agent's
// own would be. A request the recording does not hold, or that cannot be recorded, is told to
// killpoint (agent-traffic-plan.ts) and ends the process at once: the life ends there, as a
// module engine's does. What the recording run's life recorded is added to the run's recording
// as the process exits (that run is never killed).

import { ENV, EXIT_FAILED } from '../process/protocol.js';
import { sharedEventSink } from '../process/shared-events.js';
import { cassetteAsRead } from './cassette-file.js';
import { addToRecording } from './recording-file.js';
import { TRAFFIC_PLAN_ENV, tellFault, type AgentTrafficPlan } from './agent-traffic-plan.js';
import { applyInterception, startLifeTraffic } from './life-traffic.js';

function killAfterOf(raw: string | undefined): number | null {
  return raw === undefined || raw === '' ? null : Number(raw);
}

function start(plan: AgentTrafficPlan): void {
  applyInterception(true);
  const eventsFile = process.env[ENV.events];
  if (eventsFile === undefined) throw new Error(`${ENV.events}: expected the path of the events file`);
  const emit = sharedEventSink(eventsFile, killAfterOf(process.env[ENV.killAfter]), () => process.kill(process.pid, 'SIGKILL'));
  let cassette;
  try {
    cassette = plan.mode === 'replay' ? cassetteAsRead(plan.cassetteFile, plan.cassetteArg, plan.digest, plan.recordedFor) : undefined;
  } catch (error) {
    tellFault(plan.faultFile, error as Error);
    process.exit(EXIT_FAILED);
  }
  const session = startLifeTraffic({
    mode: plan.mode,
    ...(cassette === undefined ? {} : { cassette }),
    cassetteFile: plan.cassetteArg,
    ledgerFile: plan.ledgerFile,
    emit: (event) => void emit(event),
    modelUrls: plan.modelUrls,
    idempotencyHeaders: plan.idempotencyHeaders,
  });
  session.failure.catch((error: Error) => {
    tellFault(plan.faultFile, error);
    process.exit(EXIT_FAILED);
  });
  if (plan.mode === 'record') process.once('exit', () => addToRecording(plan.recordTo, plan.recordedFor, session.recorded()));
}

const raw = process.env[TRAFFIC_PLAN_ENV];
if (raw !== undefined && raw !== '') start(JSON.parse(raw) as AgentTrafficPlan);
