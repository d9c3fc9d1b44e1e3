// What playing an agent's HTTP traffic costs, in one run (these machines drift 2x from day to day:
// only figures measured together mean anything), on examples/support-agent-http's keyed graph
// (LangGraph on ChatOpenAI, its tools calling the shop with fetch), its cassette recorded here
// against the local stand-ins, which are then stopped: nothing leaves the machine.
//   (a) the interception's share of a life in process: a request answered by a life's traffic
//       (startLifeTraffic replaying the cassette, through @mswjs/interceptors) timed against the
//       same request to a plain local server (a process of its own) with no interception, and the answers of a whole life
//       (its requests, each at the replayed cost) against the time of that life run in process.
//       There is no like-for-like life without interception: the example keeps no ledger and
//       exports no readEffects, so without its cassette its lives cannot be judged at all.
//   (b) a whole check of the graph (every kill point, by equivalence) in process against
//       --tier process, and the ratio.
// Each target is printed beside its figure, met or missed.
//
//   npx tsx bench/traffic.ts [--requests 500] [--lives 10]

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startStandIns } from '../examples/support-agent-http/test/stand-ins.js';
import { langGraphModuleSpec, langGraphModuleSystem } from '../src/harness/engines/langgraph/module/system.js';
import { explore } from '../src/harness/search/explore.js';
import { runSchedule } from '../src/harness/session.js';
import { startLifeTraffic, type LifeTraffic } from '../src/harness/traffic/life-traffic.js';
import type { CassetteEntry } from '../src/harness/traffic/cassette-file.js';
import { seconds, target, timed } from './timing.js';

const { values } = parseArgs({ options: { requests: { type: 'string' }, lives: { type: 'string' } } });
const REQUESTS = Number(values.requests ?? 500);
const LIVES = Number(values.lives ?? 10);
const EXAMPLE = 'examples/support-agent-http';
const NONE = { kills: [], interleaving: [] };
const concurrency = Math.min(2, availableParallelism());
const dir = mkdtempSync(join(tmpdir(), 'killpoint-bench-traffic-'));
/** Each life's ledger a file of its own. */
let ledgers = 0;

/** `count` reads of the order, one after the other, each body read to its end. */
async function reads(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
    await res.json();
  }
}

/** One life's traffic over `run`: recorded against the stand-ins, or replayed from `cassette`. */
async function inLife<T>(cassette: CassetteEntry[] | null, run: () => Promise<T>): Promise<{ value: T; traffic: LifeTraffic }> {
  const traffic = startLifeTraffic({ mode: cassette === null ? 'record' : 'replay', ...(cassette === null ? {} : { cassette }), ledgerFile: join(dir, `ledger-${ledgers++}.json`), emit: () => undefined });
  try {
    const value = await traffic.within(run);
    if (traffic.diverged() !== null) throw new Error(`the replay diverged: ${traffic.diverged()}`);
    return { value, traffic };
  } finally {
    traffic.stop();
  }
}

/** A plain local server in a process of its own, answering the order as the shop does: its URL, and how to stop it. */
async function plainServer(): Promise<{ url: string; stop: () => void }> {
  const code = `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'application/json' }); s.end(JSON.stringify({ id: 'A-17', total_cents: 4200, refunded_cents: 0 })); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${port.toString().trim()}/v1/orders/A-17`, stop: () => child.kill() };
}

const server = await plainServer();
const order = server.url;

// (a) Plain first: once the interception is applied, every request of this thread goes through it.
await reads(order, 50);
const plain = await timed(() => reads(order, REQUESTS));
const { traffic: recording } = await inLife(null, () => reads(order, 1));
const cassette = recording.recorded();
await inLife(cassette, () => reads(order, 50));
const replayed = await timed(() => inLife(cassette, () => reads(order, REQUESTS)));
const eachPlain = plain.ms / REQUESTS;
const eachReplayed = replayed.ms / REQUESTS;
server.stop();

// The graph's cassette, recorded by its run never killed; then the stand-ins are stopped for good.
const standIns = await startStandIns();
Object.assign(process.env, standIns.env);
const graph = (tier: 'in-process' | 'process') => langGraphModuleSystem(langGraphModuleSpec({ module: `${EXAMPLE}/src/agent-keyed.ts`, inputFile: `${EXAMPLE}/input.json`, cassette: join(dir, 'agent-keyed.json') }), tier);
const [inProcess, processes] = [graph('in-process'), graph('process')];
const recorded = await runSchedule(inProcess, inProcess.ownTask!, NONE);
const asked = standIns.asked.length;
await standIns.stop();
const requestsPerLife = asked;

// A life in process, from the cassette: warmed (LangChain loaded on the threads of lives), then timed.
await Promise.all(Array.from({ length: concurrency }, () => runSchedule(inProcess, inProcess.ownTask!, NONE)));
const lives = await timed(async () => {
  for (let i = 0; i < LIVES; i++) await runSchedule(inProcess, inProcess.ownTask!, NONE);
});
const eachLife = lives.ms / LIVES;
const share = (requestsPerLife * eachReplayed) / eachLife;
console.log(`traffic, one request (GET the order, ${REQUESTS} one after the other): to a plain local server, no interception: ${eachPlain.toFixed(2)} ms each; answered by a life's traffic from the cassette: ${eachReplayed.toFixed(2)} ms each (${(eachReplayed / eachPlain).toFixed(1)}x the plain request)`);
console.log(`traffic, a life of the example's keyed graph in process from its cassette (${recorded.lives[0]!.events.length} events, ${requestsPerLife} requests): ${eachLife.toFixed(0)} ms each (${LIVES} lives); its requests answered at the replayed cost: ${(requestsPerLife * eachReplayed).toFixed(1)} ms, ${(share * 100).toFixed(1)}% of the life ${target(share <= 0.1, 'at most 10% of a life in process')}`);

// (b) A whole check of the keyed graph, each tier its own way, as `killpoint check` runs it.
await runSchedule(processes, processes.ownTask!, NONE);
const checkIn = await timed(async () => explore(inProcess.ownTask!, inProcess, { kills: 1, interleavingBound: 32, seed: 1 }, { concurrency }));
const checkProcesses = await timed(async () => explore(processes.ownTask!, processes, { kills: 1, interleavingBound: 32, seed: 1 }, { concurrency }));
const ratio = checkProcesses.ms / checkIn.ms;
console.log(`traffic, a whole check of the example's keyed graph from its cassette (${checkIn.value.schedulesExplored} schedules, by equivalence): in process, ${concurrency} at a time, ${seconds(checkIn.ms)}; processes, ${concurrency} at a time: ${seconds(checkProcesses.ms)}; in process ${ratio.toFixed(1)}x faster ${target(ratio >= 20, 'at least 20x')}`);
if (standIns.asked.length !== asked) throw new Error(`the stand-ins were asked ${standIns.asked.length - asked} more times after the recording`);
rmSync(dir, { recursive: true, force: true });
