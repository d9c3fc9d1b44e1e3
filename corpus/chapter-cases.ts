// Writes the chapter's cases into the corpus from what they mean (a kill right after the refund
// commits; the explorer's earliest failing schedule for the parallel-call bug), recording the
// concrete kill points and verdicts they give today. Run it when a bundled scenario changes on
// purpose, then read the diff: npx tsx corpus/chapter-cases.ts

import { saveCorpusEntry } from '../src/harness/search/corpus.js';
import { explore, judgeCase } from '../src/harness/search/explore.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import type { AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { loadScenarioFile } from '../src/model/load.js';

const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';
const GRACE = 'scenarios/lantern/T02-grace-refund-blocked.json';
const IVAN = 'scenarios/lantern/T03-ivan-two-orders.json';

function afterFirstCommit(file: string, strategy: AnyStrategyName): number {
  const events = simulate(loadScenarioFile(file), strategy, { kills: [], interleaving: [] }).lives[0]!.events;
  const commit = events.find((e) => e.kind === 'shop-commit');
  if (!commit) throw new Error(`${file}: no write commits under ${strategy}`);
  return commit.index;
}

function save(name: string, file: string, strategy: AnyStrategyName, kills: number[], interleaving: number[], property: string, note: string): void {
  const judged = judgeCase(loadScenarioFile(file), strategy, { kills, interleaving });
  console.log(`${saveCorpusEntry(judged, { name, note, property, scenarioFile: file })}: fails [${judged.failed.join(', ')}]`);
}

save('dana-restart-refunded-twice', DANA, 'restart', [afterFirstCommit(DANA, 'restart')], [], 'check: restart promises only a valid conversation and no half answer',
  'Dana refunded twice by restart: killed right after the refund commits, the task runs again from the top and refunds the pad again');
save('dana-journal-refunded-twice', DANA, 'journal', [afterFirstCommit(DANA, 'journal')], [], 'no keys: repeat iff gap',
  'Dana refunded twice by the journal: killed in the gap after the refund commits, the resume sends it again and $79.50 is still within what is left');
save('grace-journal-refused-then-blocked', GRACE, 'journal', [afterFirstCommit(GRACE, 'journal')], [], 'no keys: repeat iff gap',
  'Grace refunded once and told it is blocked: the repeated refund is refused by the shop (nothing left to refund), so is the retry, and the agent hands her to a person');
save('dana-stable-key-makes-repeat-harmless', DANA, 'journal+keys', [afterFirstCommit(DANA, 'journal+keys')], [], 'keys: exactly once',
  'the repeat made harmless by a stable key (run id + tool call id): the shop returns the first result, Dana is refunded once');
save('dana-random-key-does-not', DANA, 'journal+random-keys', [afterFirstCommit(DANA, 'journal+random-keys')], [], 'keys: exactly once',
  'a key from a fresh random id is new after the restart, so the shop cannot recognise the repeat: Dana refunded twice');
const ivan = explore(loadScenarioFile(IVAN), 'journal+keys/last-message', { kills: 1, interleavingBound: 1, seed: 1 }).minimal;
if (!ivan) throw new Error(`${IVAN}: the last-message resume no longer fails`);
save('ivan-parallel-call-resume-bug', IVAN, 'journal+keys/last-message', ivan.schedule.kills, ivan.schedule.interleaving, 'resumed conversation valid',
  "the chapter's parallel-call bug: killed after the first of two parallel results is saved, a resume that looks only at the last message finds nothing to do and the model API rejects the conversation");
