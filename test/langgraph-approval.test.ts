// A person in the loop, bundled: LangGraph's approval shape (approval/sync, approval/sync+keys:
// interrupt() before a reply's refunds run, every refund approved) and its scripted model
// (journal+approval, journal+keys+approval) are the same agent. The sample here: Dana's task at the
// wait, its resume, the refund's gap and the reply the person is asked about, each LangGraph kill
// run from scratch, keyed and unkeyed; the broken scripted variant that asks before the reply is
// saved is caught; the scripted model alone at every kill point of the refund tasks (in process,
// fast). `npm run approval:differential` compares every shared kill point of every refund task.

import { describe, expect, it } from 'vitest';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { repeatsWithoutKill } from '../src/harness/check/repeat-without-kill.js';
import { asksBeforeEveryRefund, compareApprovalWithScripted } from '../src/harness/differential/approval-vs-scripted.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { explore } from '../src/harness/search/explore.js';
import { lanternScenario } from '../src/model/load.js';
import { runSchedule } from '../src/harness/session.js';

const dana = lanternScenario('T01');
const NONE = { kills: [], interleaving: [] };
const WAIT = ['interrupt[approve#1]', 'resume[approve#1]'];

describe("Dana's refund, asked of a person first: LangGraph's approval shape against its scripted model", () => {
  it('unkeyed: the same verdict at the wait, its resume, the refund\'s gap and the reply asked about; the gap repeats the refund on both', async () => {
    const c = await compareApprovalWithScripted(dana, { langgraph: 'approval/sync', identities: [...WAIT, 'tool-result[call_refund]', 'model-reply[model 4]'], concurrency: 2 });
    expect(c.scripted).toBe('journal+approval');
    expect(c.rows.filter((r) => r.differences.length > 0)).toEqual([]);
    expect(c.rows.filter((r) => r.doneTwice).map((r) => r.identity)).toEqual(['tool-result[call_refund]']);
    expect(c.asksBeforeEveryRefund).toEqual({ langgraph: true, scripted: true });
  }, 120_000);

  it('keyed: the same verdict at the wait and the refund\'s gap, which keys close', async () => {
    const c = await compareApprovalWithScripted(dana, { langgraph: 'approval/sync+keys', identities: ['interrupt[approve#1]', 'tool-result[call_refund]'], concurrency: 2 });
    expect(c.scripted).toBe('journal+keys+approval');
    expect(c.rows.filter((r) => r.differences.length > 0)).toEqual([]);
    expect(c.rows.filter((r) => r.doneTwice)).toEqual([]);
  }, 120_000);

  it('the broken model that asks before the reply is saved disagrees at the wait: its recovery asks the model again, LangGraph\'s does not', async () => {
    const c = await compareApprovalWithScripted(dana, { langgraph: 'approval/sync', scripted: 'journal+approval/ask-before-save', identities: ['interrupt[approve#1]'] });
    expect(c.rows.map((r) => r.differences)).toEqual([['modelCallsRedone: langgraph 0, scripted 1']]);
  }, 120_000);
});

describe('the scripted approval strategies alone (in process)', () => {
  it('wait once before Dana\'s refund; a recovery killed at the wait says no wait of its own and is handed the same turn; one killed after the resume is not asked again', () => {
    const model = scripted('journal+approval');
    const baseline = runSchedule(model, dana, NONE);
    const ids = eventIdentities(baseline.lives[0]!.events);
    expect(ids.filter((id) => id.startsWith('interrupt') || id.startsWith('resume'))).toEqual(WAIT);
    expect(ids.indexOf('resume[approve#1]')).toBeLessThan(ids.indexOf('tool-start[call_refund]'));
    expect(repeatsWithoutKill(baseline)).toEqual([]);
    const recoveryWaits = (identity: string) => {
      const outcome = runSchedule(model, dana, { kills: [findKillPoint(baseline.lives[0]!.events, identity)!], interleaving: [] });
      expect(judge(dana, outcome, baseline).doneTwice).toEqual([]);
      return eventIdentities(outcome.lives[1]!.events).filter((id) => WAIT.includes(id));
    };
    expect(recoveryWaits('interrupt[approve#1]')).toEqual(['resume[approve#1]']);
    expect(recoveryWaits('resume[approve#1]')).toEqual(['resume[approve#1]']);
    expect(recoveryWaits('tool-start[call_refund]')).toEqual([]);
  });

  it('keep their promises at every single kill point of every task that refunds (journal+keys+approval: every check)', () => {
    for (const id of ['T01', 'T02', 'T07', 'T08', 'T09', 'T10', 'T13', 'T14']) {
      for (const name of ['journal+approval', 'journal+keys+approval']) {
        const e = explore(lanternScenario(id), scripted(name), { kills: 1, interleavingBound: 1, seed: 1 });
        expect(`${id} ${name}: ${e.brokenPromises.join(', ')}`).toBe(`${id} ${name}: `);
      }
    }
  });

  it('a refund run before any answer since its reply is told', () => {
    const baseline = runSchedule(scripted('journal'), dana, NONE) as RunOutcome;
    expect(asksBeforeEveryRefund(baseline)).toBe(false);
    expect(asksBeforeEveryRefund(runSchedule(scripted('journal+approval'), dana, NONE))).toBe(true);
  });
});
