// An agent's traffic behind the kill protocol (`killpoint harness --cassette FILE`): per life, what
// its environment is given and what killpoint reads back after it. A Node agent loads the
// interception first (NODE_OPTIONS, traffic/agent-preload.ts); an agent in another language is
// given local endpoints for the upstreams named with --proxy NAME=URL (traffic/traffic-proxy.ts),
// played in killpoint's process. Both answer as a module engine's lives are answered
// (traffic/life-traffic.ts) and write their events into the life's events file beside the
// agent's (process/shared-events.ts); at a kill point of theirs the agent is killed right there.

import { join } from 'node:path';
import type { CommittedWrite, RefusedWrite } from '../../check/outcome.js';
import { sharedEventSink } from '../../process/shared-events.js';
import { nodeOptionsWithPreload } from '../../traffic/agent-preload-bundle.js';
import { faultOf, tellFault, TRAFFIC_PLAN_ENV, type AgentTrafficPlan, type TrafficFaultLine } from '../../traffic/agent-traffic-plan.js';
import { cassetteAsRead } from '../../traffic/cassette-file.js';
import { addToRecording } from '../../traffic/recording-file.js';
import { trafficAnswerer, type TrafficAnswerer } from '../../traffic/life-traffic.js';
import { SERVICE_LEDGER_FILE, ServiceLedger } from '../../traffic/service-ledger.js';
import { startTrafficProxies, type TrafficProxies, type Upstream } from '../../traffic/traffic-proxy.js';
import type { ModuleTraffic } from '../../user-module/traffic-target.js';

export interface HarnessTraffic {
  cassette: ModuleTraffic;
  /** The upstreams played through local endpoints; none: the agent is a Node process, intercepted inside. */
  proxies: Upstream[];
}

/** Where one life runs. */
export interface AgentLifePlace {
  runDir: string;
  stateDir: string;
  lifeIndex: number;
  eventsPath: string;
  killAfter: number | null;
}

/** One life's traffic, started before the agent: its variables, then what it told once over. */
export interface AgentLifeTraffic {
  env: Record<string, string>;
  /** The agent's process, once started: killpoint's local endpoints kill it at their kill points. */
  started(pid: number): void;
  /** After the life: the request that ended it, if one did (the endpoints closed, the recording kept). */
  end(): Promise<TrafficFaultLine | null>;
}

export async function startAgentLifeTraffic(traffic: HarnessTraffic, place: AgentLifePlace): Promise<AgentLifeTraffic> {
  const t = traffic.cassette;
  const plan: AgentTrafficPlan = {
    mode: t.mode,
    cassetteFile: t.file,
    cassetteArg: t.arg,
    ...(t.digest === undefined ? {} : { digest: t.digest }),
    recordedFor: t.recordedFor,
    recordTo: t.recordTo,
    ledgerFile: join(place.stateDir, SERVICE_LEDGER_FILE),
    faultFile: join(place.runDir, `traffic-fault-${place.lifeIndex}.jsonl`),
    modelUrls: t.modelUrls,
    idempotencyHeaders: t.idempotencyHeaders,
  };
  if (traffic.proxies.length === 0) {
    return { env: { [TRAFFIC_PLAN_ENV]: JSON.stringify(plan), NODE_OPTIONS: await nodeOptionsWithPreload(process.env.NODE_OPTIONS) }, started: () => undefined, end: async () => faultOf(plan.faultFile) };
  }
  return proxiedLife(traffic.proxies, plan, place);
}

/** A life whose upstreams are played by local endpoints in this process. */
async function proxiedLife(upstreams: Upstream[], plan: AgentTrafficPlan, place: AgentLifePlace): Promise<AgentLifeTraffic> {
  let pid: number | null = null;
  let proxies: TrafficProxies | null = null;
  const killAgent = (): void => {
    proxies?.stopAnswering();
    // SIGKILL as the agent would send it itself at its kill point: no handler, no flush.
    try {
      if (pid !== null) process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already (it crashed while its request waited): how it ended is read from its exit.
    }
  };
  const emit = sharedEventSink(place.eventsPath, place.killAfter, killAgent);
  const cassette = plan.mode === 'replay' ? cassetteAsRead(plan.cassetteFile, plan.cassetteArg, plan.digest, plan.recordedFor) : undefined;
  const answerer: TrafficAnswerer = trafficAnswerer({ mode: plan.mode, ...(cassette === undefined ? {} : { cassette }), cassetteFile: plan.cassetteArg, ledgerFile: plan.ledgerFile, emit: (event) => killedAt(emit(event)), modelUrls: plan.modelUrls, idempotencyHeaders: plan.idempotencyHeaders }, globalThis.fetch, false);
  // A request the recording does not hold ends the life there, as the interception ends a Node agent's.
  answerer.failure.catch((error: Error) => {
    tellFault(plan.faultFile, error);
    killAgent();
  });
  proxies = await startTrafficProxies(upstreams, () => answerer);
  return {
    env: proxies.env,
    started: (agent) => {
      pid = agent;
    },
    end: async () => {
      await proxies!.close();
      if (plan.mode === 'record') addToRecording(plan.recordTo, plan.recordedFor, answerer.recorded());
      return faultOf(plan.faultFile);
    },
  };
}

/** An event written at the agent's kill point ends the answer there: nothing after it is done for a killed agent (no commit after its request). */
function killedAt(index: number | null): void {
  if (index !== null) return;
  const error = new Error('the agent was killed at its kill point');
  // As a life killed in process is named: the answerer stops, and answers nothing.
  error.name = 'LifeKilled';
  throw error;
}

/** The writes the run's ledger holds: the agent's effects on the services killpoint played. */
export function ledgerWrites(stateDir: string): { writes: CommittedWrite[]; refusals: RefusedWrite[] } {
  const ledger = new ServiceLedger(join(stateDir, SERVICE_LEDGER_FILE));
  return { writes: ledger.committedWrites(), refusals: ledger.refusedWrites() };
}
