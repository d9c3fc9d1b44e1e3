// A Restate system's session on a scenario: one server for the session's runs, started when the
// first run needs it and stopped (its folder removed) when the session closes, and on Ctrl-C or
// at exit through the open sessions killpoint holds (src/harness/process/processes.ts). Each run
// registers a service of its own with it, so the runs of one sweep share the server side by side.

import type { Schedule } from '../../check/outcome.js';
import type { Session } from '../../engine.js';
import type { Scenario } from '../../../model/scenario.js';
import { heldSession } from '../../process/processes.js';
import { WarmPool } from '../../process/warm-pool.js';
import { WARM_CHILDREN_VARIABLE } from '../../process/process-lives.js';
import { runWholeInProcesses } from '../../process/whole-run.js';
import { LifeTimes } from '../../life-time-limit.js';
import type { WholeRunTier } from '../../process/whole-run.js';
import { requireRestateSdk } from './packages.js';
import { startRestateServer, type RestateServer } from './server.js';

/** A run's lives on the session's server (the bundled agent's tier.ts, or a user's service's module/system.ts). */
export type RestateTierOf = (server: () => Promise<RestateServer>, warm?: WarmPool) => WholeRunTier;

/** Processes kept started ahead of their lives: one per life that may run at once (the check's two on two cores). */
const WARM_SPARES = 2;

/** Told of each server a session started, with how long it took to answer (the bench prints it). */
let onServerStarted: ((startMs: number) => void) | null = null;
export function watchServerStarts(listener: ((startMs: number) => void) | null): void {
  onServerStarted = listener;
}

export function restateSession(scenario: Scenario, systemName: string, tierOf: RestateTierOf): Session {
  let server: Promise<RestateServer> | null = null;
  let closing: Promise<void> | null = null;
  const serverOf = (): Promise<RestateServer> => {
    if (closing !== null) return Promise.reject(new Error(`restate ${systemName} ${scenario.id}: the session is closed`));
    server ??= (async () => {
      requireRestateSdk();
      const started = await startRestateServer();
      onServerStarted?.(started.startMs);
      return started;
    })();
    return server;
  };
  // Each life's process is started ahead of it (warm-pool.ts): a run's lives follow one another,
  // and the next one's start (node and the SDK, about a third of a second) overlaps with the
  // server's work instead of lying between a kill and its recovery. KILLPOINT_WARM_CHILDREN=0
  // starts each life cold.
  const warm = process.env[WARM_CHILDREN_VARIABLE] === '0' ? undefined : new WarmPool(WARM_SPARES);
  const tier = tierOf(serverOf, warm);
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      try {
        await warm?.drain();
        const started = await server?.catch(() => null);
        await started?.stop();
      } finally {
        held.release();
      }
    })());
  const held = heldSession(close);
  // Its runs never killed set the time limit of its other lives (life-time-limit.ts).
  const times = new LifeTimes();
  return {
    scenario,
    run: (schedule: Schedule) => runWholeInProcesses(tier, scenario, systemName, schedule, times),
    close,
  };
}
