// killpoint playing the services an agent writes to. A write (POST, PUT, PATCH, DELETE) is first
// committed to the run's ledger, a file in the run's state folder (copied, digested and carried
// across lives like the rest of the run's state), and only then answered: a kill between the two
// is the gap, where the service has done the write and the agent has not heard of it.
//
// Keys are honoured as payment services honour them (Stripe's rules): a key already seen with the
// same request returns the first answer and commits nothing; the same key with another request is
// refused (400, an idempotency error) and reported; a write without a key, or with a key not seen
// before, commits again. The writes committed are the run's effects: no code of the user's reads them.

import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { CommittedWrite, RefusedWrite } from '../check/outcome.js';
import { bodyKey, placeOf, type HttpRequestRecord, type HttpResponseRecord } from './exchange.js';
import { idempotencyKeyOf } from './idempotency.js';

/** The ledger's file in a run's state folder. */
export const SERVICE_LEDGER_FILE = 'killpoint-service-ledger.jsonl';

interface LedgerLine {
  /** 'committed': the write was done; 'refused': its key was seen before with another request. */
  outcome: 'committed' | 'refused';
  method: string;
  url: string;
  body: string;
  key: string | null;
  response: HttpResponseRecord;
}

/** What the service did with a write, and what it answers. */
export type WriteAnswer =
  | { outcome: 'committed'; response: HttpResponseRecord }
  | { outcome: 'repeat-answered'; response: HttpResponseRecord }
  | { outcome: 'refused'; response: HttpResponseRecord };

export class ServiceLedger {
  private readonly lines: LedgerLine[];

  constructor(
    private readonly file: string,
    private readonly idempotencyHeaders: readonly string[] = [],
  ) {
    this.lines = existsSync(file) ? parseLedger(file) : [];
  }

  /**
   * How many distinct writes are committed (by method, place and body): the state of the services
   * as reads see it (replay.ts). A write done twice, the bug a check looks for, does not move the
   * services on to a state the recording saw only after writes that were never made.
   */
  get distinctCommittedCount(): number {
    return new Set(this.lines.filter((l) => l.outcome === 'committed').map((l) => `${l.method} ${placeOf(l.url)} ${bodyKey(l.body)}`)).size;
  }

  /**
   * Answers `request` as the service would, committing it first when it commits: `recorded` is
   * the answer the service gave the run never killed (null when that run never made this write:
   * the write is committed, the checks see a write the baseline lacks, and the life ends there).
   */
  answer(request: HttpRequestRecord, recorded: HttpResponseRecord | null): WriteAnswer {
    const key = idempotencyKeyOf(request.headers, this.idempotencyHeaders);
    const first = key === null ? undefined : this.lines.find((l) => l.outcome === 'committed' && l.key === key);
    if (first !== undefined) {
      if (sameRequest(first, request)) return { outcome: 'repeat-answered', response: first.response };
      const response = keyReusedResponse(key!);
      this.append({ outcome: 'refused', method: request.method, url: request.url, body: request.body, key, response });
      return { outcome: 'refused', response };
    }
    const response = recorded ?? { status: 201, headers: {}, chunks: [''] };
    this.append({ outcome: 'committed', method: request.method, url: request.url, body: request.body, key, response });
    return { outcome: 'committed', response };
  }

  /** The committed writes, as the checks compare them: by method, host, path and body (the key rides along for the report's diagnosis, never part of what a write is). */
  committedWrites(): CommittedWrite[] {
    return this.lines.filter((l) => l.outcome === 'committed').map(asWrite);
  }

  /** The writes refused for a key reused with another request. */
  refusedWrites(): RefusedWrite[] {
    return this.lines.filter((l) => l.outcome === 'refused').map((l) => ({ ...asWrite(l), reason: 'idempotency key reused with another request' }));
  }

  /** Appended and synced before the answer: a kill after this moment finds the write done. */
  private append(line: LedgerLine): void {
    const fd = openSync(this.file, 'a');
    try {
      writeSync(fd, `${JSON.stringify(line)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.lines.push(line);
  }
}

function sameRequest(line: LedgerLine, request: HttpRequestRecord): boolean {
  const [a, b] = [new URL(line.url), new URL(request.url)];
  return line.method === request.method && a.host === b.host && a.pathname === b.pathname && bodyKey(line.body) === bodyKey(request.body);
}

/** Stripe's answer to a key used again with other parameters. */
function keyReusedResponse(key: string): HttpResponseRecord {
  const error = { error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` } };
  return { status: 400, headers: { 'content-type': 'application/json' }, chunks: [JSON.stringify(error)] };
}

function asWrite(line: LedgerLine): CommittedWrite {
  const url = new URL(line.url);
  return { kind: line.method, target: `${url.host}${url.pathname}`, args: bodyKey(line.body), key: line.key };
}

function parseLedger(file: string): LedgerLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((text, i) => {
      try {
        return JSON.parse(text) as LedgerLine;
      } catch (error) {
        throw new Error(`${file}: line ${i + 1} of the service ledger is not JSON (${(error as Error).message})`);
      }
    });
}
