// One life of a run whose lives are processes, the same for every engine that has such a tier:
// start the child with the kill protocol's variables (and the engine's own), wait for it, read
// its events. Interleaving picks are consumed in order across the whole run, so each life is
// given the picks its predecessors left, and reports those it took on its event lines (`pick` and
// `pickWidth`, or `picks` and `pickWidths` for several since the last event).

import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import type { LifeRecord, RunOutcome } from '../check/outcome.js';
import type { Conversation } from '../../model/conversation.js';
import { Shop } from '../../model/shop.js';
import { readOutbox } from '../../model/file-stores.js';
import type { RunEvent } from '../check/events.js';
import { SystemInputError } from '../engine.js';
import { runChild, type ChildExit } from './processes.js';
import { lifeTimeoutFrom } from '../life-time-limit.js';
import type { WarmPool } from './warm-pool.js';
import type { TierLife, TierLifeRequest } from './process-lives.js';
import { ENV, errorLine, lifeEnd, readEvents } from './protocol.js';

export interface ProcessLife {
  /** The run's folder (events and result files) and the state folder the lives share. */
  dir: string;
  stateDir: string;
  lifeIndex: number;
  killAfter: number | null;
  /** The child: a bundle run by this node. */
  bundle: string;
  /** The engine's own variables, beside the protocol's. */
  env: Record<string, string>;
  /** The variable that gives the child the interleaving picks left for it. */
  picksVariable: string;
  picksLeft: readonly number[];
  /** Names the life in errors. */
  what: string;
  timeoutMs?: number;
  /** Where it runs in a process started ahead of it (the explorer's); otherwise a child is started for it. */
  warm?: WarmPool;
}

export interface ProcessLifeEnd {
  exit: ChildExit;
  events: RunEvent[];
  picks: number[];
  widths: number[];
  resultPath: string;
}

export async function runProcessLife(life: ProcessLife): Promise<ProcessLifeEnd> {
  const eventsPath = join(life.dir, `events-${life.lifeIndex}.jsonl`);
  const resultPath = join(life.dir, `result-${life.lifeIndex}.json`);
  const variables: Record<string, string> = {
    [ENV.stateDir]: life.stateDir,
    [ENV.events]: eventsPath,
    [ENV.life]: String(life.lifeIndex),
    [ENV.result]: resultPath,
    [ENV.killAfter]: life.killAfter === null ? '' : String(life.killAfter),
    ...life.env,
    [life.picksVariable]: JSON.stringify(life.picksLeft),
  };
  const exit = life.warm !== undefined
    ? await life.warm.run(life.bundle, variables, life.timeoutMs)
    : await runChild(process.execPath, [life.bundle], { ...process.env, ...variables }, undefined, life.timeoutMs);
  const picks: number[] = [];
  const widths: number[] = [];
  const events = readEvents(eventsPath, life.what).map(({ pick, pickWidth, picks: many, pickWidths: manyWidths, ...event }) => {
    if (typeof pick === 'number') picks.push(pick);
    if (typeof pickWidth === 'number') widths.push(pickWidth);
    if (Array.isArray(many)) picks.push(...(many as number[]));
    if (Array.isArray(manyWidths)) widths.push(...(manyWidths as number[]));
    return event as unknown as RunEvent;
  });
  return { exit, events, picks, widths, resultPath };
}

/** What a process tier's life request says of the life to run: its folders, number, kill point, picks and warm pool. */
export function lifeOfRequest(request: TierLifeRequest): Pick<ProcessLife, 'dir' | 'stateDir' | 'lifeIndex' | 'killAfter' | 'picksLeft' | 'warm'> {
  return {
    dir: request.runDir,
    stateDir: request.stateDir,
    lifeIndex: request.lifeIndex,
    killAfter: request.killAfter,
    picksLeft: [...request.picks],
    ...(request.warm === undefined ? {} : { warm: request.warm }),
  };
}

/** The picks a life may use: those of the schedule its predecessors have not taken. */
export function picksLeft(interleaving: readonly number[], taken: number): number[] {
  return interleaving.slice(Math.min(taken, interleaving.length));
}

/** What a run left in its files: the shop's logs and rows, and the answers delivered to this run. */
export function readRunStores(shopPath: string, outboxPath: string, runId: string): Pick<RunOutcome, 'delivered' | 'writes' | 'refusals' | 'shop'> {
  const shop = Shop.open(shopPath);
  try {
    return {
      delivered: readOutbox(outboxPath).filter((a) => a.runId === runId).map((a) => a.text),
      writes: shop.writeLog(),
      refusals: shop.refusalLog(),
      shop: shop.snapshot(),
    };
  } finally {
    shop.close();
  }
}

/** What a real engine's life that did not die leaves in its result file (its child writes it). */
export type EngineLifeResult =
  | { end: 'finished'; conversation: unknown[] | null }
  | { end: 'failed'; errorKind: 'conversation-rejected'; error: string };

/**
 * How a real engine's life ended, from its exit, events and result file. The engine is the system
 * under test: a life that crashes (a recovery that throws) is a verdict about it, with its error line.
 */
export function engineLifeRecord(engine: string, ran: ProcessLifeEnd, killAfter: number | null, what: string): { record: LifeRecord; conversation: Conversation | null } {
  const { exit, events, resultPath } = ran;
  const end = lifeEnd(exit, events.length, killAfter, what, 'verdict');
  const record: LifeRecord = { events, end: end === 'crashed' ? 'failed' : end, killedAfter: end === 'killed' ? killAfter : null, error: null, errorKind: null };
  let conversation: Conversation | null = null;
  if (end === 'crashed') {
    record.error = `the ${engine} life crashed (exit ${exit.code ?? exit.signal})${errorLine(exit.stderr)}`;
    record.errorKind = 'crashed';
  }
  if (end === 'failed' || end === 'finished') {
    const result = JSON.parse(readFileSync(resultPath, 'utf8')) as EngineLifeResult;
    if (result.end === 'failed') {
      record.error = result.error;
      record.errorKind = result.errorKind;
    } else if (result.end === 'finished' && result.conversation !== null) {
      conversation = result.conversation as Conversation;
    }
  }
  return { record, conversation };
}

/** A real engine's child as its tier starts it: the variables that name its run file and its picks, its time limit. */
export interface EngineChild {
  /** The engine's name in a crashed life's error ("the LangGraph life crashed"). */
  engine: string;
  bundle: string;
  runFileVariable: string;
  picksVariable: string;
  /** The variable that may set a life's time limit in seconds. */
  timeoutVariable: string;
  /** The exit status of a life that found its durable state unusable: bad input, not a verdict. */
  badInputExit?: number;
  /** What that exit says of the life, after its name (default: it cannot run on its durable state). */
  badInputPhrase?: string;
}

/** One life of a real engine's child, from a tier's request: its run file written, the child run, how it ended read back. */
export async function runEngineLife(child: EngineChild, request: TierLifeRequest, what: string, runFile: unknown): Promise<TierLife> {
  const runFilePath = join(request.runDir, 'run.json');
  writeFileSync(runFilePath, JSON.stringify(runFile));
  const ran = await runProcessLife({
    ...lifeOfRequest(request), bundle: child.bundle, what,
    env: { [child.runFileVariable]: runFilePath },
    picksVariable: child.picksVariable,
    timeoutMs: lifeTimeoutFrom(child.timeoutVariable, request),
  });
  if (child.badInputExit !== undefined && ran.exit.code === child.badInputExit) throw new SystemInputError(`${what}: ${child.badInputPhrase ?? 'the life cannot run on its durable state'}${errorLine(ran.exit.stderr)}`);
  const { record, conversation } = engineLifeRecord(child.engine, ran, request.killAfter, what);
  return { record, conversation, picks: ran.picks, widths: ran.widths };
}
