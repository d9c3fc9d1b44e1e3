// Half an answer must never be stored, sent or acted on. The journal that saves the answer while
// it streams is the broken variant that proves the check can fail.

import { describe, expect, it } from 'vitest';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { lanternScenario } from '../src/model/load.js';
import { baselineOf, halfwayThroughAnswer, killAndJudge } from './helpers.js';

const dana = lanternScenario('T01');

describe('killed halfway through streaming the answer', () => {
  it('the journal throws the half-written answer away, asks again and delivers it whole', () => {
    const verdict = killAndJudge(dana, 'journal', [halfwayThroughAnswer(dana, 'journal')]);
    expect(verdict).toMatchObject({ partialAnswerDelivered: false, sameAnswer: true, answerRestarts: 1, modelCallsRedone: 1 });
  });

  it('a journal that saves the answer while it streams delivers half of it on resume', () => {
    const kill = halfwayThroughAnswer(dana, 'journal/partial-answer');
    const verdict = killAndJudge(dana, 'journal/partial-answer', [kill]);
    expect(verdict.partialAnswerDelivered).toBe(true);
    expect(verdict.sameAnswer).toBe(false);
    expect(verdict.baselineAnswer!.startsWith(verdict.answer!)).toBe(true);
    expect(verdict.answer!.length).toBeLessThan(verdict.baselineAnswer!.length);
    // The resume acted on the saved half without asking the model again.
    const outcome = simulate(dana, 'journal/partial-answer', { kills: [kill], interleaving: [] });
    expect(outcome.lives[1]!.events.map((e) => e.kind)).toEqual(['answer-delivered']);
  });

  it('unkilled, the broken variant delivers the whole answer, so only a kill shows the bug', () => {
    expect(baselineOf(dana, 'journal/partial-answer').delivered).toEqual(baselineOf(dana, 'journal').delivered);
  });
});
