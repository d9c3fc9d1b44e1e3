// Verdicts name the root cause, and promises are judged on causes. On a task whose second write
// (a receipt email) is made only once the first (a refund) went through, a kill in the refund's
// gap makes an unkeyed journal or workflow send the refund again; the shop refuses it, the model
// takes the refusal's branch (a hand-off) and the email is never sent. That email is the gap's
// consequence, which these strategies do not promise to close: not a lost write of their own.
// A write lost on its own (a journal that records a write before doing it) still fails.

import { describe, expect, it } from 'vitest';
import { failedChecks, lostWrites } from '../src/harness/check/checks.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { loadScenarioFile } from '../src/model/load.js';
import { explore, judgeCase } from '../src/harness/search/explore.js';
import { findKillPoint } from '../src/harness/check/kill-points.js';
import { formatFailure } from '../src/harness/report/text.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { runSchedule } from '../src/harness/session.js';

const task = loadScenarioFile('test/fixtures/refund-then-email.json');
const NONE = { kills: [], interleaving: [] };

function atTheRefundsCommit(strategy: string) {
  const system = scripted(strategy);
  const k = findKillPoint((runSchedule(system, task, NONE) as RunOutcome).lives[0]!.events, 'shop-commit[call_refund]')!;
  return judgeCase(task, system, { kills: [k], interleaving: [] });
}

describe('a write not sent because a repeat in the gap was refused', () => {
  it.each(['journal', 'workflow'])('%s: the email is the refused repeat\'s consequence, reported with its cause, not a broken promise', (strategy) => {
    const judged = atTheRefundsCommit(strategy);
    expect(judged.verdict.lostWrites.map(String)).toEqual([expect.stringContaining('send_email C-310')]);
    expect(lostWrites(judged)).toMatchObject({ own: [], because: [{ repeat: { callId: 'call_refund', reason: 'over-refund' } }] });
    expect(judged.failed).not.toContain('lost-write');
    expect(judged.failed).toEqual(expect.arrayContaining(['refused-repeat', 'different-write', 'different-answer']));
    expect(judged.broken).toEqual([]);
    const report = formatFailure({ judged, source: { kind: 'scenario-file', path: 'test/fixtures/refund-then-email.json' } });
    expect(report).toContain("send_email C-310 lost, because the repeat of call_refund in the gap was refused (over-refund) and the model took the refusal's branch");
    expect(report).toContain('hand_off C-310 made instead, because the repeat of call_refund in the gap was refused (over-refund)');
    expect(explore(task, scripted(strategy)).brokenPromises).toEqual([]);
  });

  it('a write lost on its own still fails: the journal that records a write before doing it', () => {
    const e = explore(task, scripted('journal/entry-before-write'));
    expect(e.brokenPromises).toContain('lost-write');
    const m = e.minimal!;
    expect(lostWrites(m).own.length).toBeGreaterThan(0);
    expect(failedChecks(m)).toContain('lost-write');
  });

  it('with keys nothing is refused, nothing lost, every promise kept', () => {
    for (const strategy of ['journal+keys', 'workflow+keys']) expect(explore(task, scripted(strategy)).brokenPromises, strategy).toEqual([]);
  });
});

describe('a write every branch leads to', () => {
  // The same task with a survey email after the receipt and after the hand-off alike: whatever the
  // refund gave, the model asks for it, so a survey never sent is a loss of its own.
  const rejoin = loadScenarioFile('test/fixtures/refund-then-survey.json');

  it('is not excused by a refused repeat: its loss is its own', () => {
    const system = scripted('journal');
    const baseline = runSchedule(system, rejoin, NONE) as RunOutcome;
    const k = findKillPoint(baseline.lives[0]!.events, 'shop-commit[call_refund]')!;
    const killed = runSchedule(system, rejoin, { kills: [k], interleaving: [] }) as RunOutcome;
    expect(failedChecks({ scenario: rejoin, outcome: killed, verdict: judge(rejoin, killed, baseline) })).not.toContain('lost-write');
    // The run as it would be had the resume also lost the survey: no commit, no result, no write.
    const survey = (id: string | undefined) => id === 'call_survey';
    const lostSurvey: RunOutcome = {
      ...killed,
      writes: killed.writes.filter((w) => !JSON.stringify(w).includes('How did we do?')),
      lives: killed.lives.map((l) => ({ ...l, events: l.events.filter((e) => !survey(e.callId)) })),
    };
    const verdict = judge(rejoin, lostSurvey, baseline);
    const split = lostWrites({ scenario: rejoin, outcome: lostSurvey, verdict });
    expect(split.own.map((w) => w.args)).toEqual([expect.stringContaining('How did we do?')]);
    expect(split.because.map((b) => b.write.args)).toEqual([expect.stringContaining('Your refund')]);
    expect(failedChecks({ scenario: rejoin, outcome: lostSurvey, verdict })).toContain('lost-write');
  });
});
