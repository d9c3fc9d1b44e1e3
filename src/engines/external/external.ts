// killpoint against a harness in any language, through the protocol (protocol.ts) alone: start
// it once per life with a kill point, restart it after each SIGKILL on the same state folder, then
// read what it left: the shop's write_log, the delivered answers and the events. The verdict is
// the part of judge()'s that needs no scenario: writes done twice, different or lost against a
// run never killed, and whether the customer got the same answer, once.

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readOutbox } from '../scripted/file-stores.js';
import { runChild, withTempDir, type ChildExit } from '../../real/processes.js';
import { ENV, lifeEnd, ProtocolError, readEvents, type ProtocolEvent } from '../../real/protocol.js';
import { compareWrites } from '../../check/verdict.js';
import { WriteIdentity } from '../../check/records.js';
import { MAX_EVENTS_PER_LIFE, runLivesAsync } from '../life-loop.js';

export interface ExternalHarness {
  /** Shown in reports, e.g. `python3 refund_agent.py --keys`. */
  name: string;
  command: string;
  args: string[];
}

export interface ExternalLife {
  events: ProtocolEvent[];
  end: 'killed' | 'finished' | 'failed';
  killedAfter: number | null;
  error: string | null;
}

export interface ExternalWrite {
  kind: string;
  target: string;
  args: string;
  key: string | null;
}

export interface ExternalOutcome {
  harness: string;
  kills: number[];
  lives: ExternalLife[];
  writes: ExternalWrite[];
  delivered: string[];
}

export interface ExternalVerdict {
  harness: string;
  kills: number[];
  /** The event the (first) kill landed after, for reports. */
  killedAfterEvent: string | null;
  extraWrites: number;
  doneTwice: WriteIdentity[];
  differentWrites: WriteIdentity[];
  lostWrites: WriteIdentity[];
  answer: string | null;
  sameAnswer: boolean;
  answersDelivered: number;
  recoveryError: string | null;
  /** Survived the kill: no write extra or lost, the same answer, delivered once, no error. */
  ok: boolean;
}

/** Runs the harness under a kill schedule, one process per life. */
export function runExternal(harness: ExternalHarness, kills: number[]): Promise<ExternalOutcome> {
  return withTempDir('killpoint-external-', async (dir) => {
    const lives = await runLivesAsync(kills, async (lifeIndex, killAfter): Promise<ExternalLife> => {
      const eventsPath = join(dir, `events-${lifeIndex}.jsonl`);
      const what = `${harness.name} life ${lifeIndex}`;
      const exit = await startLife(harness, what, {
        ...process.env,
        [ENV.stateDir]: dir,
        [ENV.events]: eventsPath,
        [ENV.life]: String(lifeIndex),
        [ENV.result]: join(dir, `result-${lifeIndex}.json`),
        [ENV.killAfter]: killAfter === null ? '' : String(killAfter),
      });
      const events = readEvents(eventsPath, what);
      if (events.length > MAX_EVENTS_PER_LIFE) throw new ProtocolError(`${what}: more than ${MAX_EVENTS_PER_LIFE} events, a runaway loop`);
      const end = lifeEnd(exit, events.length, killAfter, what);
      return { events, end, killedAfter: end === 'killed' ? killAfter : null, error: end === 'failed' ? exit.stderr.trim() : null };
    });
    return { harness: harness.name, kills, lives, ...readStores(dir, harness.name) };
  });
}

/** Starts one life; a command that cannot be started is bad input, not a crash of ours. */
async function startLife(harness: ExternalHarness, what: string, env: NodeJS.ProcessEnv): Promise<ChildExit> {
  try {
    return await runChild(harness.command, harness.args, env);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ENOENT' || e.code === 'EACCES') throw new ProtocolError(`${what}: cannot start ${harness.command} (${e.code === 'ENOENT' ? 'no such command' : 'permission denied'})`);
    throw error;
  }
}

/** The two stores the protocol reads back: the shop's write_log and the delivered answers. */
function readStores(dir: string, name: string): { writes: ExternalWrite[]; delivered: string[] } {
  const shopPath = join(dir, 'shop.sqlite');
  if (!existsSync(shopPath)) throw new ProtocolError(`${name}: left no shop.sqlite in ${ENV.stateDir} (the protocol reads its table write_log(kind, target, args, key)); a harness that breaks the protocol is bad input`);
  let writes: ExternalWrite[];
  let db: Database.Database | null = null;
  try {
    db = new Database(shopPath, { readonly: true, fileMustExist: true });
    writes = db.prepare('SELECT kind, target, args, key FROM write_log ORDER BY seq').all() as ExternalWrite[];
  } catch (error) {
    throw new ProtocolError(`${name}: cannot read write_log(kind, target, args, key) from its shop.sqlite (${(error as Error).message}); a harness that breaks the protocol is bad input`);
  } finally {
    db?.close();
  }
  let delivered: string[];
  try {
    delivered = readOutbox(join(dir, 'outbox.jsonl')).map((a) => a.text);
  } catch (error) {
    // The message names a file in a temp folder that is gone by now: keep only what is wrong with it.
    throw new ProtocolError(`${name}: its outbox.jsonl is not one {"runId", "text"} JSON object per line (${(error as Error).message.replace(/^.*outbox\.jsonl:/, 'line ')}); a harness that breaks the protocol is bad input`);
  }
  return { writes, delivered };
}

export function judgeExternal(outcome: ExternalOutcome, baseline: ExternalOutcome): ExternalVerdict {
  const { extraWrites, doneTwice, differentWrites, lostWrites } = compareWrites(outcome.writes.map(WriteIdentity.of), baseline.writes.map(WriteIdentity.of));
  const answer = outcome.delivered.at(-1) ?? null;
  const sameAnswer = answer !== null && answer === (baseline.delivered.at(-1) ?? null);
  const recoveryError = outcome.lives.find((l) => l.end === 'failed')?.error ?? null;
  const first = outcome.lives[0];
  const killedAfterEvent = first?.killedAfter === null || first === undefined ? null : first.killedAfter < 0 ? '(before the first event)' : eventLabel(first.events[first.killedAfter]!);
  return {
    harness: outcome.harness,
    kills: outcome.kills,
    killedAfterEvent,
    extraWrites,
    doneTwice,
    differentWrites,
    lostWrites,
    answer,
    sameAnswer,
    answersDelivered: outcome.delivered.length,
    recoveryError,
    ok: extraWrites === 0 && lostWrites.length === 0 && sameAnswer && outcome.delivered.length === 1 && recoveryError === null,
  };
}

function eventLabel(e: ProtocolEvent): string {
  const detail = ['tool', 'callId'].map((f) => e[f]).filter((v) => typeof v === 'string');
  return [e.kind, ...detail].join(' ');
}

/** Every single kill point of the harness, from a run never killed: -1 to its last event. */
export async function checkEveryKillPoint(harness: ExternalHarness, concurrency = 2): Promise<ExternalVerdict[]> {
  const baseline = await runExternal(harness, []);
  if (baseline.lives[0]!.end !== 'finished') throw new ProtocolError(`${harness.name}: the run without a kill did not finish: ${baseline.lives[0]!.error}`);
  const points = Array.from({ length: baseline.lives[0]!.events.length + 1 }, (_, i) => i - 1);
  const verdicts: ExternalVerdict[] = new Array(points.length);
  let next = 0;
  // One life that breaks the protocol ends the check: no worker starts a new run after it. Points
  // are taken in order and the runs under way finish, so every point below a failing one has run:
  // the error reported is the lowest point's, whatever the timing.
  const errors = new Map<number, unknown>();
  const worker = async (): Promise<void> => {
    while (next < points.length && errors.size === 0) {
      const i = next++;
      try {
        verdicts[i] = judgeExternal(await runExternal(harness, [points[i]!]), baseline);
      } catch (error) {
        errors.set(i, error);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (errors.size > 0) throw errors.get(Math.min(...errors.keys()));
  return verdicts;
}
