// Answers from the cassette. A model call by its conversation (method, host, path and body); a read
// by its method and URL, as the services stood then: the answer recorded after as many distinct
// committed writes as the run's ledger holds now (a read after the refund sees the refund); a write
// by its method, host, path and body, whatever its key (the key is the service's business:
// service-ledger.ts). A request asked again in a life gets the next answer recorded for it (an SDK's
// retry after a 429 gets the 200 that followed; a poll gets "pending", then "done"), the last one
// after that. A request the recording does not hold gets null: the life has left the run never
// killed, and says where.

import type { CassetteEntry } from './cassette-file.js';
import { bodyKey, placeOf, type HttpRequestRecord, type HttpResponseRecord, type TrafficRole } from './exchange.js';
import { keptUrl } from './secrets.js';

export class Replay {
  /** How often this life has asked each request so far. */
  private readonly asked = new Map<string, number>();

  constructor(private readonly entries: readonly CassetteEntry[]) {}

  /** The recorded answer to `request` in `role`, or null; `committedWrites`: the ledger's distinct count now (for reads). */
  answer(role: TrafficRole, request: HttpRequestRecord, committedWrites: number): HttpResponseRecord | null {
    const same = role === 'read' ? this.readsAsThen(request, committedWrites) : this.entries.filter((e) => e.role === role && exchangeId(e) === exchangeId({ role, request, afterWrites: 0 }));
    if (same.length === 0) return null;
    const id = `${exchangeId(same[0]!)} @${same[0]!.afterWrites}`;
    const nth = this.asked.get(id) ?? 0;
    this.asked.set(id, nth + 1);
    return same[Math.min(nth, same.length - 1)]!.response;
  }

  /** The answers recorded for a read in the latest state the recording saw at or before this one (before its first read, its first). */
  private readsAsThen(request: HttpRequestRecord, committedWrites: number): CassetteEntry[] {
    const url = keptUrl(request.url);
    const same = this.entries.filter((e) => e.role === 'read' && e.request.method === request.method && e.request.url === url);
    if (same.length === 0) return [];
    const then = same.filter((e) => e.afterWrites <= committedWrites);
    const state = then.length === 0 ? same[0]!.afterWrites : Math.max(...then.map((e) => e.afterWrites));
    return same.filter((e) => e.afterWrites === state);
  }
}

/** What makes two exchanges the same request: a read by its URL and the state it was made in, any other by method, place and body. */
function exchangeId({ role, request, afterWrites }: Pick<CassetteEntry, 'role' | 'request' | 'afterWrites'>): string {
  return role === 'read' ? `${role} ${request.method} ${request.url} ${afterWrites}` : `${role} ${request.method} ${placeOf(request.url)} ${bodyKey(request.body)}`;
}

/** The runs never killed's traffic, gathered into cassette entries: every exchange, in the order it was made. */
export class Recording {
  private readonly entries: CassetteEntry[] = [];

  add(entry: CassetteEntry): void {
    this.entries.push(entry);
  }

  get exchanges(): CassetteEntry[] {
    return [...this.entries];
  }
}
