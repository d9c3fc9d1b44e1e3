// Kill points by identity: the same moment keeps its name when parallel calls run in another order
// and its index moves; a schedule, a report and a corpus entry can name a kill point either way.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventIdentities, findKillPoint, killPointIdentity } from '../src/harness/check/kill-points.js';
import { main } from '../src/harness/cli/main.js';
import { captureConsole } from './helpers.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { loadCorpusEntry, replayEntry } from '../src/harness/search/corpus.js';
import { lanternScenario } from '../src/model/load.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');

const out = captureConsole();

describe('an event identity', () => {
  it('names every event of a life once', () => {
    for (const strategy of ['journal', 'workflow'] as const) {
      const ids = eventIdentities(simulate(dana, strategy, { kills: [], interleaving: [] }).lives[0]!.events);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('reads as what the event is', () => {
    const events = simulate(dana, 'journal', { kills: [], interleaving: [] }).lives[0]!.events;
    const commit = events.findIndex((e) => e.kind === 'shop-commit' && e.callId === 'call_refund');
    expect(killPointIdentity(events, commit)).toBe('shop-commit[call_refund]');
    expect(killPointIdentity(events, -1)).toBe('start');
    expect(killPointIdentity(events, 1)).toBe('model-chunk[model 0 chunk 0]');
    expect(killPointIdentity(events, events.length - 1)).toBe('answer-delivered');
  });

  it('stays with its moment when parallel calls run in another order and the index moves', () => {
    const orders = [[], [1, 1, 1, 1, 1, 1]].map((interleaving) => simulate(ivan, 'journal', { kills: [], interleaving }).lives[0]!.events);
    const [first, second] = orders.map((events) => eventIdentities(events));
    const commits = first!.filter((id) => id.startsWith('shop-commit['));
    expect(commits.length).toBeGreaterThan(1);
    expect(new Set(second)).toEqual(new Set(first));
    const moved = commits.filter((id) => findKillPoint(orders[0]!, id) !== findKillPoint(orders[1]!, id));
    expect(moved.length).toBeGreaterThan(0);
  });
});

describe('a schedule by identity', () => {
  it('check --schedule replays the same case as its index, and the report names it', async () => {
    expect(await main(['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--strategy', 'journal+random-keys', '--schedule', 'shop-commit[call_refund]'])).toBe(1);
    const byIdentity = out.text();
    expect(byIdentity).toMatch(/kill schedule: 57 \(shop-commit\[call_refund\]\)/);
    out.clear();
    expect(await main(['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--strategy', 'journal+random-keys', '--schedule', '57'])).toBe(1);
    expect(out.text()).toBe(byIdentity);
  });

  it('an identity no event of its life has is bad input that lists what the life has', async () => {
    expect(await main(['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--strategy', 'journal', '--schedule', 'shop-commit[call_nothing]'])).toBe(2);
    expect(out.text()).toMatch(/kill point "shop-commit\[call_nothing\]": life 1 has no such event \(it has \d+ events: model-request\[model 0\], /);
  });

  it('a corpus entry may name its kills by identity only, and a wrong identity is a mismatch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-killat-'));
    try {
      const entry = (killAt: string[]) => ({
        note: 'Dana refunded twice by a journal killed in the gap', scenario: 'scenarios/lantern/T01-dana-torn-pad.json', strategy: 'journal',
        schedule: { killAt, interleaving: [] }, property: 'gap', expected: { failed: ['done-twice', 'shop-differs', 'different-answer'] },
      });
      writeFileSync(join(dir, 'by-identity.json'), JSON.stringify(entry(['shop-commit[call_refund]'])));
      const replay = await replayEntry(loadCorpusEntry(join(dir, 'by-identity.json')));
      expect(replay.judged.schedule.kills).toEqual([57]);
      expect(replay.mismatches).toEqual([]);
      writeFileSync(join(dir, 'both.json'), JSON.stringify({ ...entry(['tool-result[call_refund]']), schedule: { kills: [57], killAt: ['tool-result[call_refund]'], interleaving: [] } }));
      expect((await replayEntry(loadCorpusEntry(join(dir, 'both.json')))).mismatches[0]).toMatch(/schedule.killAt\[0\]: expected kill 57 to be after "tool-result\[call_refund\]", it is after "shop-commit\[call_refund\]"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
