// An agent in any language, through the kill protocol (src/harness/process/protocol.ts) alone: start it once
// per life with a kill point, restart it after each SIGKILL on the same state folder, then read
// what it left: the shop's write_log, the delivered answers and the events, as a RunOutcome.

import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readOutbox } from '../../../model/file-stores.js';
import { LifeTimedOut, runChild, type ChildExit } from '../../process/processes.js';
import { DEFAULT_LIFE_TIMEOUT_MS, type LifeTimes } from '../../life-time-limit.js';
import type { TierLife, TierLifeRequest } from '../../process/process-lives.js';
import { runWholeInProcesses, type WholeRunTier } from '../../process/whole-run.js';
import type { Scenario } from '../../../model/scenario.js';
import { ENV, errorLine, EXIT_FAILED, lifeEnd, ProtocolError, readEvents, type ProtocolEvent } from '../../process/protocol.js';
import type { RunEvent } from '../../check/events.js';
import { killPointIdentity } from '../../check/kill-points.js';
import type { CommittedWrite, LifeRecord, RunOutcome, Schedule } from '../../check/outcome.js';
import { MAX_EVENTS_PER_LIFE } from '../../life-loop.js';
import { runNeverKilledTwice, sameStep } from './never-killed-twice.js';
import { ledgerWrites, startAgentLifeTraffic, type AgentLifePlace, type AgentLifeTraffic, type HarnessTraffic } from './agent-traffic.js';
import type { TrafficFaultLine } from '../../traffic/agent-traffic-plan.js';
import { CassetteError } from '../../traffic/cassette-file.js';
import { TrafficRecorder } from '../../user-module/traffic-recorder.js';

export interface ExternalHarness {
  /** Shown in reports, e.g. `python3 refund_agent.py --keys`. */
  name: string;
  command: string;
  args: string[];
  /**
   * How long one life may run before it is killed; default: ten times the longest life of the run
   * never killed plus 5 s (life-time-limit.ts), 120 s for that run. A recovery that runs longer hung
   * (a verdict on it); a run never killed that does leaves nothing to compare with (bad input).
   */
  lifeTimeoutMs?: number;
  /** Its traffic, played by killpoint (--cassette): agent-traffic.ts. */
  traffic?: HarnessTraffic;
}

/** The run's id in reports and outcomes: the harness runs a task of its own, not a scenario of ours. */
export const EXTERNAL_TASK_ID = 'harness';

/** The task an external agent runs: its own, so the scenario holds nothing but a name. */
export const EXTERNAL_TASK: Scenario = {
  id: EXTERNAL_TASK_ID,
  title: 'its own task',
  customerMessage: '',
  shop: { customers: [], orders: [], refunds: [] },
  start: '',
  steps: new Map(),
  timings: { modelLatencyMs: 0, chunkMs: 0, toolWaitMs: 0, gapMs: 0 },
};

/**
 * Runs the harness under a kill schedule, one process per life, and reads the outcome back from
 * the state folder. The shop's rows and refusals are the harness's own business: the outcome holds
 * its write_log and its delivered answers, no shop rows and no conversation.
 */
export async function runExternal(harness: ExternalHarness, kills: number[], times?: LifeTimes, besideState?: (stateDir: string) => void): Promise<RunOutcome> {
  const outcome = await runWholeInProcesses(externalTier(harness, besideState), EXTERNAL_TASK, harness.name, { kills, interleaving: [] }, times);
  if (kills.length === 0) mustGiveSomethingToJudge(harness.name, outcome.lives[0]!, outcome.delivered);
  return outcome;
}

/**
 * The runs of one session of the harness. A kill point is judged against the run never killed,
 * which means something only when the killed run's first life did what that run did up to its
 * kill point: the same events, index by index (what the explorer by equivalence asks of a process
 * engine's lives, process-lives.ts: mustRepeat). The session runs its first run never killed twice
 * (never-killed-twice.ts: state kept outside the folder, another order each run), keeps its first
 * life and holds the first life of every later run to it; one that differs (another path when
 * killed) is bad input, never judged. The search runs the run never killed first; a run that comes
 * back before it still waits for it to be compared.
 */
export function externalRuns(harness: ExternalHarness): (schedule: Schedule, times?: LifeTimes) => Promise<RunOutcome> {
  const runs = sessionRuns(harness);
  if (harness.traffic === undefined) return runs;
  // The cassette made first where it is missing, by one run never killed of its own: the yardstick's two then replay it.
  return new TrafficRecorder(harness.traffic.cassette).around(runs, (schedule, times) => runExternal(harness, schedule.kills, times));
}

function sessionRuns(harness: ExternalHarness): (schedule: Schedule, times?: LifeTimes) => Promise<RunOutcome> {
  let neverKilled: Promise<LifeRecord | null> | null = null;
  return async (schedule, times) => {
    const reference = neverKilled;
    if (reference === null && schedule.kills.length === 0) {
      const running = runNeverKilledTwice(harness.name, (besideState) => runExternal(harness, [], times, besideState));
      // A run never killed that fails reports its own error to whoever asked for it.
      neverKilled = running.then((outcome) => outcome.lives[0] ?? null, () => null);
      return running;
    }
    const outcome = await runExternal(harness, schedule.kills, times);
    const first = await reference;
    if (first !== null) mustRepeatTheRunNeverKilled(harness.name, first, outcome);
    return outcome;
  };
}

/** The first life of `outcome` wrote what the run never killed wrote, up to its kill point (every event, for a run never killed). */
function mustRepeatTheRunNeverKilled(name: string, neverKilled: LifeRecord, outcome: RunOutcome): void {
  const life = outcome.lives[0];
  if (life === undefined) return;
  const killedAfter = outcome.schedule.kills[0];
  const last = killedAfter ?? Math.max(neverKilled.events.length, life.events.length) - 1;
  const which = killedAfter === undefined ? 'life 1 of another run never killed' : `life 1 of the run killed after event ${killedAfter}`;
  for (let i = 0; i <= last; i++) {
    const expected = neverKilled.events[i];
    const got = life.events[i];
    if (expected === undefined && got === undefined) return;
    if (expected !== undefined && got !== undefined && sameStep(expected, got)) continue;
    throw new ProtocolError(`${name}: ${which} ${howItDiffers(i, expected, got, life, neverKilled)}: an agent whose lives do not repeat cannot be judged at a kill point`);
  }
}

function howItDiffers(i: number, expected: RunEvent | undefined, got: RunEvent | undefined, life: LifeRecord, neverKilled: LifeRecord): string {
  if (got === undefined) return `${lifeEndText(life)} after ${life.events.length} events, where the run never killed went on to write event ${i} as ${JSON.stringify(expected)}`;
  if (expected === undefined) return `wrote event ${i} as ${JSON.stringify(got)} where the run never killed had ended after ${neverKilled.events.length} events`;
  return `wrote event ${i} as ${JSON.stringify(got)} where the run never killed wrote ${JSON.stringify(expected)}`;
}

function lifeEndText(life: LifeRecord): string {
  if (life.end === 'finished') return 'ran to its end';
  if (life.end === 'killed') return 'was killed';
  return `stopped (${life.error})`;
}

/** One life of the harness: its command, started with the protocol's variables; `previous` is the life before it in its run. */
async function externalLife(harness: ExternalHarness, request: TierLifeRequest, previous: LifeRecord | undefined): Promise<TierLife> {
  const { lifeIndex, killAfter } = request;
  const eventsPath = join(request.runDir, `events-${lifeIndex}.jsonl`);
  const what = `${harness.name} life ${lifeIndex}`;
  // Its session's limit (TierLifeRequest.timeoutMs) unless the harness sets one.
  const timeoutMs = harness.lifeTimeoutMs ?? request.timeoutMs ?? DEFAULT_LIFE_TIMEOUT_MS;
  const traffic = harness.traffic === undefined ? null : await trafficOfLife(harness.traffic, { runDir: request.runDir, stateDir: request.stateDir, lifeIndex, eventsPath, killAfter });
  let exit: Awaited<ReturnType<typeof startLifeOrHang>>;
  let fault: TrafficFaultLine | null = null;
  try {
    exit = await startLifeOrHang(harness, what, previous, timeoutMs, {
      ...process.env,
      ...traffic?.env,
      [ENV.stateDir]: request.stateDir,
      [ENV.events]: eventsPath,
      [ENV.life]: String(lifeIndex),
      [ENV.result]: join(request.runDir, `result-${lifeIndex}.json`),
      [ENV.killAfter]: killAfter === null ? '' : String(killAfter),
    }, traffic?.started);
  } finally {
    fault = (await traffic?.end()) ?? null;
  }
  const events = eventsOf(eventsPath, what, harness.traffic !== undefined);
  if (events.length > MAX_EVENTS_PER_LIFE) throw new ProtocolError(`${what}: more than ${MAX_EVENTS_PER_LIFE} events, a runaway loop`);
  if (fault !== null) return { record: endedOnTraffic(what, harness.traffic!, fault, events), conversation: null, picks: [], widths: [] };
  const record = 'hungAfter' in exit ? hungRecovery(what, request, events, exit) : endedLife(what, exit, events, killAfter);
  return { record, conversation: null, picks: [], widths: [] };
}

/**
 * The life's events; with a cassette killpoint writes events into the file too, and an agent that
 * numbers its own by a count of its own is told how to number them.
 */
function eventsOf(path: string, what: string, shared: boolean): ProtocolEvent[] {
  try {
    return readEvents(path, what);
  } catch (error) {
    if (!shared || !(error instanceof ProtocolError) || !/expected \{"index"/.test(error.message)) throw error;
    throw new ProtocolError(`${error.message}; with --cassette killpoint writes events into ${ENV.events} too: number each of yours by the lines already in the file`);
  }
}

/** A life's traffic started; a cassette that cannot be replayed is bad input. */
async function trafficOfLife(traffic: HarnessTraffic, place: AgentLifePlace): Promise<AgentLifeTraffic> {
  try {
    return await startAgentLifeTraffic(traffic, place);
  } catch (error) {
    if (error instanceof CassetteError) throw new ProtocolError(error.message);
    throw error;
  }
}

/**
 * A life its traffic ended: a request the run never killed never made is a verdict on the recovery
 * (the conversation left the recording); a request that could not be recorded or answered, or a
 * cassette that cannot be replayed, is bad input.
 */
function endedOnTraffic(what: string, traffic: HarnessTraffic, fault: TrafficFaultLine, events: ProtocolEvent[]): LifeRecord {
  if (fault.name !== 'ConversationRejected') throw new ProtocolError(fault.message.startsWith('--cassette') ? fault.message : `${what}: --cassette ${traffic.cassette.arg}: ${fault.message}`);
  return { events: events as unknown as RunEvent[], end: 'failed', killedAfter: null, error: fault.message, errorKind: 'conversation-rejected' };
}

/** A life that ended by itself or by its kill, as the protocol's exit status says. */
function endedLife(what: string, exit: ChildExit, events: ProtocolEvent[], killAfter: number | null): LifeRecord {
  const end = lifeEnd(exit, events.length, killAfter, what, 'verdict');
  // The harness's events carry what it writes: an index, a kind, and fields of its own.
  const record: LifeRecord = { events: events as unknown as RunEvent[], end: end === 'crashed' ? 'failed' : end, killedAfter: end === 'killed' ? killAfter : null, error: null, errorKind: null };
  if (end === 'failed') {
    record.error = `the agent stopped on an error (exit ${EXIT_FAILED})${stderrTail(exit.stderr)}`;
    record.errorKind = 'stopped';
  }
  if (end === 'crashed') {
    record.error = `the agent crashed (exit ${exit.code ?? exit.signal})${errorLine(exit.stderr)}`;
    record.errorKind = 'crashed';
  }
  return record;
}

/** How many of the last lines of its stderr a life that stopped on an error is reported with. */
const STDERR_TAIL_LINES = 3;

/** The last lines of what an agent wrote on stderr when it stopped (its error, by the protocol), on one line. */
function stderrTail(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.length === 0 ? ', with nothing on stderr' : `: ${lines.slice(-STDERR_TAIL_LINES).join(' | ')}`;
}

/**
 * A recovery that did not end within its time: it waits for something its killed predecessor left
 * (a lock, say) and would wait forever. That is how the recovery behaves after that kill point, so
 * it is a verdict on it: the life stopped, with the kill point it followed.
 */
function hungRecovery(what: string, request: TierLifeRequest, events: ProtocolEvent[], hang: { hungAfter: LifeRecord; timeoutMs: number }): LifeRecord {
  const { lifeIndex, killAfter } = request;
  if (killAfter !== null && events.length > killAfter) {
    throw new ProtocolError(`${what}: the harness did not kill itself after event ${killAfter} (${ENV.killAfter}=${killAfter}): it wrote ${events.length} events and hung; a harness that breaks the protocol is bad input`);
  }
  const error = `the recovery hung: it did not end within ${hang.timeoutMs / 1000} s after kill point ${killPointText(hang.hungAfter, lifeIndex)}`;
  return { events: events as unknown as RunEvent[], end: 'failed', killedAfter: null, error, errorKind: 'stopped', hung: true };
}

/**
 * The kill point of the life before life `lifeIndex` (0 for the first), by index and identity,
 * e.g. "4 (shop-commit[step-2])"; past the first recovery, with the life it was in (numbered from 1).
 */
function killPointText(killed: LifeRecord, lifeIndex: number): string {
  const k = killed.killedAfter ?? killed.events.length - 1;
  const inLife = lifeIndex > 1 ? ` of life ${lifeIndex}` : '';
  return `${k} (${killPointIdentity(killed.events, k)})${inLife}`;
}

/**
 * The harness as one whole run asks of an engine: an empty state folder (the agent makes its shop),
 * its lives, each told of the one before it, and what its stores hold.
 */
function externalTier(harness: ExternalHarness, besideState?: (stateDir: string) => void): WholeRunTier {
  const earlier: LifeRecord[] = [];
  return {
    name: 'external',
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: async (_scenario, request) => {
      const life = await externalLife(harness, request, earlier.at(-1));
      earlier.push(life.record);
      return life;
    },
    stores: (_scenario, stateDir, lives) => {
      besideState?.(stateDir);
      // A last life that crashed, stopped or hung before making its shop has written nothing; one
      // that ran to its end must have made it, unless the services it writes to are played by
      // killpoint: its writes are then the ledger's too.
      const stopped = lives.at(-1)?.end === 'failed';
      const noShop = (stopped || harness.traffic !== undefined) && !existsSync(join(stateDir, 'shop.sqlite'));
      const { writes, delivered } = noShop ? { writes: [], delivered: readDelivered(stateDir, harness.name) } : readStores(stateDir, harness.name);
      if (harness.traffic === undefined) return { delivered, writes, refusals: [], shop: {} };
      const played = ledgerWrites(stateDir);
      return { delivered, writes: [...writes, ...played.writes], refusals: played.refusals, shop: {} };
    },
  };
}

/**
 * The run never killed is what every kill point is judged against. One that finished with no
 * event leaves no kill point but "before anything"; one that exited 0 without delivering an answer
 * did not do its task. Either would let every kill point "survive": bad input, not a pass.
 */
function mustGiveSomethingToJudge(name: string, life: LifeRecord, delivered: string[]): void {
  if (life.end !== 'finished') return; // the explorer reports a run that did not finish
  if (life.events.length === 0) throw new ProtocolError(`${name}: the run without a kill wrote no events (${ENV.events}): there is no kill point to test; a harness that breaks the protocol is bad input`);
  if (delivered.length === 0) throw new ProtocolError(`${name}: the run without a kill exited 0 but delivered no answer (outbox.jsonl): it did not finish its task; a harness that breaks the protocol is bad input`);
}

/**
 * Starts one life and waits for it to end. A recovery (a life with one killed before it) that
 * outlives its time hung after that kill, which is a verdict on it; a first life that does stays
 * an error: a run never killed that hangs leaves nothing to compare with.
 */
async function startLifeOrHang(harness: ExternalHarness, what: string, previous: LifeRecord | undefined, timeoutMs: number, env: NodeJS.ProcessEnv, started?: (pid: number) => void): Promise<ChildExit | { hungAfter: LifeRecord; timeoutMs: number }> {
  try {
    return await startLife(harness, what, env, timeoutMs, started);
  } catch (error) {
    if (previous !== undefined && error instanceof LifeTimedOut) return { hungAfter: previous, timeoutMs };
    throw error;
  }
}

/** Starts one life; a command that cannot be started is bad input, not a crash of ours. */
async function startLife(harness: ExternalHarness, what: string, env: NodeJS.ProcessEnv, timeoutMs: number, started?: (pid: number) => void): Promise<ChildExit> {
  try {
    return await runChild(harness.command, harness.args, env, undefined, timeoutMs, started);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' || e.code === 'EACCES') throw new ProtocolError(`${what}: cannot start ${harness.command} (${e.code === 'ENOENT' ? 'no such command' : 'permission denied'})`);
    throw error;
  }
}

/** The two stores the protocol reads back: the shop's write_log and the delivered answers. */
function readStores(dir: string, name: string): { writes: CommittedWrite[]; delivered: string[] } {
  const shopPath = join(dir, 'shop.sqlite');
  if (!existsSync(shopPath)) throw new ProtocolError(`${name}: left no shop.sqlite in ${ENV.stateDir} (the protocol reads its table write_log(kind, target, args, key)); a harness that breaks the protocol is bad input`);
  let writes: CommittedWrite[];
  let db: Database.Database | null = null;
  try {
    db = new Database(shopPath, { readonly: true, fileMustExist: true });
    // The kinds are the harness's own; the checks compare them as text.
    writes = db.prepare('SELECT kind, target, args, key FROM write_log ORDER BY seq').all() as CommittedWrite[];
  } catch (error) {
    throw new ProtocolError(`${name}: cannot read write_log(kind, target, args, key) from its shop.sqlite (${(error as Error).message}); a harness that breaks the protocol is bad input`);
  } finally {
    db?.close();
  }
  return { writes, delivered: readDelivered(dir, name) };
}

function readDelivered(dir: string, name: string): string[] {
  try {
    return readOutbox(join(dir, 'outbox.jsonl')).map((a) => a.text);
  } catch (error) {
    // The message names a file in a temp folder that is gone by now: keep only what is wrong with it.
    throw new ProtocolError(`${name}: its outbox.jsonl is not one {"runId", "text"} JSON object per line (${(error as Error).message.replace(/^.*outbox\.jsonl:/, 'line ')}); a harness that breaks the protocol is bad input`);
  }
}
