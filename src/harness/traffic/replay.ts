// Answers from the cassette. A model call by its conversation (method, host, path and body); a read
// by its method and URL, as the services stood then: the answer recorded after as many committed
// writes as the run's ledger holds now (a read after the refund sees the refund); a write by its
// method, host, path and body, whatever its key (the key is the service's business:
// service-ledger.ts). A request the recording does not hold gets null: the life has left the run
// never killed, and says where.

import type { CassetteEntry } from './cassette-file.js';
import { bodyKey, placeOf, type HttpRequestRecord, type HttpResponseRecord, type TrafficRole } from './exchange.js';
import { keptUrl } from './secrets.js';

export class Replay {
  constructor(private readonly entries: readonly CassetteEntry[]) {}

  /** The recorded answer to `request` in `role`, or null; `committedWrites`: the ledger's count now (for reads). */
  answer(role: TrafficRole, request: HttpRequestRecord, committedWrites: number): HttpResponseRecord | null {
    if (role === 'read') return this.read(request, committedWrites);
    const place = placeOf(request.url);
    const body = bodyKey(request.body);
    const found = this.entries.find((e) => e.role === role && e.request.method === request.method && placeOf(e.request.url) === place && bodyKey(e.request.body) === body);
    return found?.response ?? null;
  }

  private read(request: HttpRequestRecord, committedWrites: number): HttpResponseRecord | null {
    const url = keptUrl(request.url);
    const same = this.entries.filter((e) => e.role === 'read' && e.request.method === request.method && e.request.url === url);
    if (same.length === 0) return null;
    const then = same.filter((e) => e.afterWrites <= committedWrites);
    // The latest state the recording saw at or before this one; before its first read, its first.
    const best = then.length === 0 ? same[0]! : then.reduce((a, b) => (b.afterWrites >= a.afterWrites ? b : a));
    return best.response;
  }
}

/** The runs never killed's traffic, gathered into cassette entries: one per distinct exchange. */
export class Recording {
  private readonly entries: CassetteEntry[] = [];
  private readonly seen = new Set<string>();

  add(entry: CassetteEntry): void {
    const { role, request } = entry;
    const id = role === 'read' ? `${role} ${request.method} ${request.url} ${entry.afterWrites}` : `${role} ${request.method} ${placeOf(request.url)} ${bodyKey(request.body)}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.entries.push(entry);
  }

  get exchanges(): CassetteEntry[] {
    return [...this.entries];
  }
}
