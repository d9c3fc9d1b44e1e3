// What each of the scripted engine's ways to recover promises, and why:
// - restart keeps nothing of the agent, so it redoes work and may repeat any write or take another
//   path; all it can promise is that each life's conversation is valid (it starts from scratch),
//   that no half answer is acted on (the answer is only sent once complete) and that the answer
//   is delivered once (a life that finds it delivered does nothing).
// - journal and workflow without keys record every step after it returns, so nothing recorded is
//   ever lost; but a kill in the gap between a write's commit and its record makes the resume send
//   the write again (done twice, or refused by the shop's rules, and then a different path and a
//   different answer). They promise no lost write, a valid conversation, no half answer, one answer.
// - with keys (journal+keys, workflow+keys) the repeat is answered from the key table: every write
//   happens exactly once, so they promise every check: nothing done twice, lost, refused, or
//   different, the same shop state, the same answer, a valid conversation, no half answer, one answer.
// A broken variant promises what the strategy it imitates promises (random keys claim to be keys;
// a last-message resume claims to be journal+keys; a journal with a bad write order claims to be
// a journal): that is the promise it breaks, and a check that catches it proves the check can fail.

import { CHECK_NAMES, type CheckName } from '../../check/checks.js';
import type { Strategy } from './strategies.js';

const EVERY_CHECK: readonly CheckName[] = CHECK_NAMES;
const RECORDED_STEPS: readonly CheckName[] = ['lost-write', 'invalid-conversation', 'half-answer', 'answer-twice'];
const FROM_SCRATCH: readonly CheckName[] = ['invalid-conversation', 'half-answer', 'answer-twice'];

/** The checks this strategy promises to pass at every kill schedule. */
export function promisedChecks(strategy: Strategy): readonly CheckName[] {
  if (strategy.recovery === 'restart') return FROM_SCRATCH;
  return strategy.keys === 'none' ? RECORDED_STEPS : EVERY_CHECK;
}
