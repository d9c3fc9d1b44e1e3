// An agent in any language, through the kill protocol (src/harness/process/protocol.ts) alone: start it once
// per life with a kill point, restart it after each SIGKILL on the same state folder, then read
// what it left: the shop's write_log, the delivered answers and the events, as a RunOutcome.

import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readOutbox } from '../../../model/file-stores.js';
import { DEFAULT_LIFE_TIMEOUT_MS, runChild, type ChildExit } from '../../process/processes.js';
import type { TierLife, TierLifeRequest } from '../../process/process-lives.js';
import { runWholeInProcesses, type WholeRunTier } from '../../process/whole-run.js';
import type { Scenario } from '../../../model/scenario.js';
import { ENV, errorLine, lifeEnd, ProtocolError, readEvents } from '../../process/protocol.js';
import type { RunEvent } from '../../check/events.js';
import type { CommittedWrite, LifeRecord, RunOutcome } from '../../check/outcome.js';
import { MAX_EVENTS_PER_LIFE } from '../../life-loop.js';

export interface ExternalHarness {
  /** Shown in reports, e.g. `python3 refund_agent.py --keys`. */
  name: string;
  command: string;
  args: string[];
  /** How long one life may run before it is killed and the check stops (bad input); default 120 s. */
  lifeTimeoutMs?: number;
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
export async function runExternal(harness: ExternalHarness, kills: number[]): Promise<RunOutcome> {
  const outcome = await runWholeInProcesses(externalTier(harness), EXTERNAL_TASK, harness.name, { kills, interleaving: [] });
  if (kills.length === 0) mustGiveSomethingToJudge(harness.name, outcome.lives[0]!, outcome.delivered);
  return outcome;
}

/** One life of the harness: its command, started with the protocol's variables. */
async function externalLife(harness: ExternalHarness, request: TierLifeRequest): Promise<TierLife> {
  const { lifeIndex, killAfter } = request;
  const eventsPath = join(request.runDir, `events-${lifeIndex}.jsonl`);
  const what = `${harness.name} life ${lifeIndex}`;
  const exit = await startLife(harness, what, {
    ...process.env,
    [ENV.stateDir]: request.stateDir,
    [ENV.events]: eventsPath,
    [ENV.life]: String(lifeIndex),
    [ENV.result]: join(request.runDir, `result-${lifeIndex}.json`),
    [ENV.killAfter]: killAfter === null ? '' : String(killAfter),
  });
  const events = readEvents(eventsPath, what);
  if (events.length > MAX_EVENTS_PER_LIFE) throw new ProtocolError(`${what}: more than ${MAX_EVENTS_PER_LIFE} events, a runaway loop`);
  const end = lifeEnd(exit, events.length, killAfter, what, 'verdict');
  // The harness's events carry what it writes: an index, a kind, and fields of its own.
  const record: LifeRecord = { events: events as unknown as RunEvent[], end: end === 'crashed' ? 'failed' : end, killedAfter: end === 'killed' ? killAfter : null, error: null, errorKind: null };
  if (end === 'failed') {
    record.error = exit.stderr.trim();
    record.errorKind = 'stopped';
  }
  if (end === 'crashed') {
    record.error = `the agent crashed (exit ${exit.code ?? exit.signal})${errorLine(exit.stderr)}`;
    record.errorKind = 'crashed';
  }
  return { record, conversation: null, picks: [], widths: [] };
}

/** The harness as a whole run asks of an engine: an empty state folder (the agent makes its shop), its lives, what its stores hold. */
function externalTier(harness: ExternalHarness): WholeRunTier {
  return {
    name: 'external',
    prepare: (_scenario, stateDir) => mkdirSync(stateDir, { recursive: true }),
    life: (_scenario, request) => externalLife(harness, request),
    stores: (_scenario, stateDir, lives) => {
      // An agent that crashed before making its shop has written nothing; one that ran to its end must have made it.
      const crashed = lives.at(-1)?.errorKind === 'crashed';
      const { writes, delivered } = crashed && !existsSync(join(stateDir, 'shop.sqlite')) ? { writes: [], delivered: readDelivered(stateDir, harness.name) } : readStores(stateDir, harness.name);
      return { delivered, writes, refusals: [], shop: {} };
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

/** Starts one life; a command that cannot be started is bad input, not a crash of ours. */
async function startLife(harness: ExternalHarness, what: string, env: NodeJS.ProcessEnv): Promise<ChildExit> {
  try {
    return await runChild(harness.command, harness.args, env, undefined, harness.lifeTimeoutMs ?? DEFAULT_LIFE_TIMEOUT_MS);
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
