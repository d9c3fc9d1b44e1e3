// killpoint against a harness in any language, through the protocol (protocol.ts) alone: start
// it once per life with a kill point, restart it after each SIGKILL on the same state folder, then
// read what it left: the shop's write_log, the delivered answers and the events. The verdict is
// the part of judge()'s that needs no scenario: writes done twice, different or lost against a
// run never killed, and whether the customer got the same answer, once.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { readOutbox } from '../file-stores.js';
import { runChild, withTempDir } from './processes.js';
import { ENV, EXIT_FAILED, readEvents, type ProtocolEvent } from './protocol.js';

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
  doneTwice: string[];
  differentWrites: string[];
  lostWrites: string[];
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
    const lives: ExternalLife[] = [];
    for (let lifeIndex = 0; lifeIndex <= kills.length; lifeIndex++) {
      const killAfter = lifeIndex < kills.length ? kills[lifeIndex]! : null;
      const eventsPath = join(dir, `events-${lifeIndex}.jsonl`);
      const exit = await runChild(harness.command, harness.args, {
        ...process.env,
        [ENV.stateDir]: dir,
        [ENV.events]: eventsPath,
        [ENV.life]: String(lifeIndex),
        [ENV.result]: join(dir, `result-${lifeIndex}.json`),
        [ENV.killAfter]: killAfter === null ? '' : String(killAfter),
      });
      const events = readEvents(eventsPath);
      const what = `${harness.name} life ${lifeIndex}`;
      let life: ExternalLife;
      if (exit.signal === 'SIGKILL') {
        if (killAfter === null || events.length - 1 !== killAfter) {
          throw new Error(`${what}: killed by SIGKILL after event ${events.length - 1}, but its kill point was ${killAfter ?? 'none'}`);
        }
        life = { events, end: 'killed', killedAfter: killAfter, error: null };
      } else if (exit.code === 0) {
        life = { events, end: 'finished', killedAfter: null, error: null };
      } else if (exit.code === EXIT_FAILED) {
        life = { events, end: 'failed', killedAfter: null, error: exit.stderr.trim() };
      } else {
        throw new Error(`${what}: the harness crashed (exit ${exit.code ?? exit.signal})\n${exit.stderr}`);
      }
      lives.push(life);
      if (life.end !== 'killed') break;
    }
    const db = new Database(join(dir, 'shop.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const writes = db.prepare('SELECT kind, target, args, key FROM write_log ORDER BY seq').all() as ExternalWrite[];
      return { harness: harness.name, kills, lives, writes, delivered: readOutbox(join(dir, 'outbox.jsonl')).map((a) => a.text) };
    } finally {
      db.close();
    }
  });
}

function counts(items: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const item of items) m.set(item, (m.get(item) ?? 0) + 1);
  return m;
}

export function judgeExternal(outcome: ExternalOutcome, baseline: ExternalOutcome): ExternalVerdict {
  const identity = (w: ExternalWrite) => `${w.kind} ${w.target} ${w.args}`;
  const mine = counts(outcome.writes.map(identity));
  const theirs = counts(baseline.writes.map(identity));
  const doneTwice: string[] = [];
  const differentWrites: string[] = [];
  const lostWrites: string[] = [];
  for (const [w, n] of mine) for (let i = theirs.get(w) ?? 0; i < n; i++) ((theirs.get(w) ?? 0) > 0 ? doneTwice : differentWrites).push(w);
  for (const [w, n] of theirs) for (let i = mine.get(w) ?? 0; i < n; i++) lostWrites.push(w);
  const answer = outcome.delivered.at(-1) ?? null;
  const sameAnswer = answer !== null && answer === (baseline.delivered.at(-1) ?? null);
  const recoveryError = outcome.lives.find((l) => l.end === 'failed')?.error ?? null;
  const first = outcome.lives[0];
  const killedAfterEvent = first?.killedAfter === null || first === undefined ? null : first.killedAfter < 0 ? '(before the first event)' : eventLabel(first.events[first.killedAfter]!);
  const extraWrites = doneTwice.length + differentWrites.length;
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
  if (baseline.lives[0]!.end !== 'finished') throw new Error(`${harness.name}: the run without a kill did not finish: ${baseline.lives[0]!.error}`);
  const points = Array.from({ length: baseline.lives[0]!.events.length + 1 }, (_, i) => i - 1);
  const verdicts: ExternalVerdict[] = new Array(points.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < points.length) {
      const i = next++;
      verdicts[i] = judgeExternal(await runExternal(harness, [points[i]!]), baseline);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return verdicts;
}
