// A probe, not a tier: can a Restate life run inside killpoint's own process and be killed there
// as faithfully as by SIGKILL? The life is the bundled agent's (life.ts), its service served on an
// HTTP/2 endpoint of this process that is torn down at the kill point (every connection reset,
// the listener closed: what the server sees of a killed process), its emit refusing everything
// after; the recovery is a fresh endpoint on the same port, which the server's retry calls. The
// same kill points are run by processes killed with SIGKILL (the engine as `check` runs it), one
// at a time, and compared kill point by kill point: each life's number of events, the writes
// (their keys' invocation ids and drawn numbers named apart: every run has its own) and the
// answers delivered.
//
//   npx tsx bench/restate-in-process-probe.ts [--strategy service] [--scenario T01] [--every 1]
//
// The life is the in-process tier's (src/harness/in-process/in-process-life.ts): it runs in a
// private copy of the state folder, published at the kill point, and its endpoint and shop are held
// by its fence and closed there. So a parallel call's closure still running after the kill point
// cannot change what the recovery starts from: a first version of this probe, without either, had
// Ivan's second cancellation committed after the kill point that should have stopped it. What a
// tier would need besides: two lives at a time, and the explorer's verdicts instead of these three
// fields.

// The SDK calls Promise.withResolvers, which Node 20 lacks: loaded first, as the child does.
import '../src/harness/engines/restate/shim.js';
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as restate from '@restatedev/restate-sdk';
import { restateConfigNamed } from '../src/harness/engines/restate/config.js';
import { restateSystem } from '../src/harness/engines/restate/engine.js';
import { runRestateLife } from '../src/harness/engines/restate/life.js';
import { RESTATE_STATE_FILES } from '../src/harness/engines/restate/run-spec.js';
import { startRestateServer } from '../src/harness/engines/restate/server.js';
import { identityOf, restateTier } from '../src/harness/engines/restate/tier.js';
import { shopThrough, type LifeFence } from '../src/harness/in-process/fence.js';
import { runInProcessLife } from '../src/harness/in-process/in-process-life.js';
import { readRunStores } from '../src/harness/process/process-life.js';
import { lanternScenario } from '../src/model/load.js';

const { values } = parseArgs({ options: { strategy: { type: 'string' }, scenario: { type: 'string' }, every: { type: 'string' } } });
const strategy = values.strategy ?? 'service';
const scenario = lanternScenario(values.scenario ?? 'T01');
const every = Number(values.every ?? 1);
const config = restateConfigNamed(strategy);
if (config === undefined || config.loop !== 'service') {
  console.error(`restate-in-process-probe: expected one of the service systems, got "${strategy}"`);
  process.exit(2);
}
const server = await startRestateServer();
const tier = restateTier(config, strategy, async () => server);

interface ProbeLife {
  events: number;
  killed: boolean;
}

/**
 * One life in this process through the in-process tier's own life (in-process/in-process-life.ts):
 * killed right after event `killAfter`, when its fence closes what the life holds, the endpoint
 * (every connection reset, the listener closed) and the shop.
 */
async function lifeInProcess(stateDir: string, lifeIndex: number, killAfter: number | null): Promise<ProbeLife> {
  const run = await identityOf(scenario, stateDir);
  const serveThrough = (fence: LifeFence) => async (service: restate.ServiceDefinition<string, unknown>, port: number): Promise<void> => {
    const connections = new Set<Socket>();
    const endpoint = http2.createServer(restate.createEndpointHandler({ services: [service], bidirectional: true, logger: () => {} }));
    endpoint.on('connection', (socket: Socket) => {
      connections.add(socket);
      socket.on('close', () => connections.delete(socket));
    });
    fence.hold(endpoint, (held) => {
      for (const socket of connections) socket.resetAndDestroy();
      held.close();
    });
    await new Promise<void>((resolve, reject) => endpoint.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  };
  const life = await runInProcessLife({
    stateDir,
    engine: 'Restate',
    what: `${scenario.id} restate ${strategy} life ${lifeIndex}`,
    killAfter,
    timeoutMs: 120_000,
    run: async ({ emit, onPick }, fence, workDir) =>
      runRestateLife({ scenario, config: config!, stateDir: workDir, ingressUrl: server.ingressUrl, adminUrl: server.adminUrl, run, lifeIndex, picks: [], emit, onPick, serve: serveThrough(fence), openShop: shopThrough(fence) }),
  });
  return { events: life.record.events.length, killed: life.record.end === 'killed' };
}

async function runInProcess(killAfter: number): Promise<{ lives: ProbeLife[]; stores: { writes: unknown; delivered: unknown } }> {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-restate-probe-'));
  try {
    tier.prepare(scenario, dir);
    const lives: ProbeLife[] = [];
    for (let lifeIndex = 0; lives.length === 0 || lives.at(-1)!.killed; lifeIndex++) lives.push(await lifeInProcess(dir, lifeIndex, lifeIndex === 0 ? killAfter : null));
    return { lives, stores: readRunStores(join(dir, RESTATE_STATE_FILES.shop), join(dir, RESTATE_STATE_FILES.outbox), scenario.id) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A key is the invocation's id and the call's id, or (the broken random keys) a number drawn from the run's own seed.
const fields = (o: { writes: unknown; delivered: unknown }) =>
  JSON.stringify({ writes: o.writes, delivered: o.delivered }).replace(/inv_[0-9A-Za-z]+:[0-9a-f]{12}"/g, 'inv_<the run>:<drawn>"').replace(/inv_[0-9A-Za-z]+/g, 'inv_<the run>');
const session = restateSystem(strategy)!.open(scenario);
let inProcessMs = 0;
let processMs = 0;
let killPoints = 0;
const disagreements: string[] = [];
try {
  const baseline = await session.run({ kills: [], interleaving: [] });
  for (let k = 0; k < baseline.lives[0]!.events.length; k += every) {
    killPoints++;
    let started = performance.now();
    const here = await runInProcess(k);
    inProcessMs += performance.now() - started;
    started = performance.now();
    const there = await session.run({ kills: [k], interleaving: [] });
    processMs += performance.now() - started;
    const [a, b] = [`${here.lives.map((l) => l.events).join('+')} events ${fields(here.stores)}`, `${there.lives.map((l) => l.events.length).join('+')} events ${fields(there)}`];
    if (a !== b) disagreements.push(`kill point ${k}:\n  in process: ${a}\n  SIGKILL:    ${b}`);
  }
} finally {
  await session.close();
  await server.stop();
}
for (const d of disagreements) console.log(d);
console.log(`restate ${strategy} on ${scenario.id}, in process (a probe) vs process: ${killPoints} kill points, ${disagreements.length} disagreements, one at a time ${(inProcessMs / killPoints).toFixed(0)} ms against ${(processMs / killPoints).toFixed(0)} ms a kill-and-resume, ${(processMs / inProcessMs).toFixed(1)}x faster`);
process.exit(disagreements.length === 0 ? 0 : 1);
