// A write lost to a kill is one the shop never saw. Counted per write: when a task makes the same
// write twice (both pads refunded, one call each), one call sent does not hide the other one lost.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explore } from '../src/harness/search/explore.js';
import { unsentWrites } from '../src/harness/check/checks.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { judge } from '../src/harness/check/verdict.js';
import { LANTERN_DIR } from '../src/model/load.js';
import { parseScenario } from '../src/model/scenario.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';

function danaRefundsBothPads() {
  const raw = JSON.parse(readFileSync(join(LANTERN_DIR, 'T01-dana-torn-pad.json'), 'utf8'));
  raw.id = 'T01-both-pads';
  raw.model.steps.refund.next = 'refund-second-pad';
  raw.model.steps['refund-second-pad'] = { calls: [{ tool: 'refund', args: { orderId: 'O-1042', lineId: 'L1', amountCents: 7950 } }], next: 'answer' };
  return parseScenario(raw, 'T01 with a second, identical refund');
}

describe('a write lost between its journal entry and the shop', () => {
  const scenario = danaRefundsBothPads();
  const strategy = 'journal/entry-before-write';
  const baseline = simulate(scenario, strategy, { kills: [], interleaving: [] });
  const secondRefundStart = baseline.lives[0]!.events.filter((e) => e.kind === 'tool-start' && e.tool === 'refund')[1]!;
  // The entry that says the second refund is done is saved before the shop runs it.
  const entrySaved = baseline.lives[0]!.events.find((e) => e.index > secondRefundStart.index && e.kind === 'journal-save')!;

  it('is lost even though an identical refund was sent', () => {
    const outcome = simulate(scenario, strategy, { kills: [entrySaved.index], interleaving: [] });
    const verdict = judge(scenario, outcome, baseline);
    expect(verdict.lostWrites.map(String)).toEqual(['refund O-1042/L1 {"amountCents":7950,"lineId":"L1","orderId":"O-1042"}']);
    expect(unsentWrites({ scenario, outcome, verdict })).toEqual(verdict.lostWrites);
  });

  it('makes the explorer fail the strategy on the lost-write check', () => {
    const result = explore(scenario, scripted(strategy), { kills: 1, interleavingBound: 1, seed: 1 });
    expect(result.minimal?.failed).toContain('lost-write');
  });
});
