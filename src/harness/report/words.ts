// Words a newcomer meets in killpoint's help and reports before reading anything else, said once
// here so that --help, the text reports and the HTML report explain them the same way.

export const WORDS: readonly { word: string; meaning: string }[] = [
  { word: 'kill point', meaning: 'the moment right after one instrumented event of a run (a model chunk, a tool start, a shop commit, a journal save, the answer); the process is SIGKILLed there and a recovery resumes it' },
  { word: 'baseline', meaning: 'the same task run once without a kill; every killed run is compared with it' },
  { word: 'the gap', meaning: 'after a write has committed in the shop and before the agent\'s journal (or workflow step record) says so: a kill there makes any recovery send the write again' },
  { word: 'Lantern', meaning: 'Lantern Outfitters, a made-up outdoor shop: its 14 customer-support tasks are the bundled scenarios (scenarios/lantern/)' },
  { word: "Dana's task", meaning: 'T01, the running example: Dana Okafor asks for a refund for one of two sleeping pads that arrived torn' },
  { word: 'the chapter', meaning: 'the book chapter "Durable agents: kill it mid-refund, then resume it", whose experiment (14 tasks x 5 ways to recover x 6 kills) `killpoint experiment` reproduces' },
];

/** What "ok" means beside failures that are not promised: the line the text and HTML reports both print. */
export const PROMISE_NOTE = 'ok means every check the system promises held at every kill point; a count marked (not promised) is a weakness the system does not claim to avoid, shown but not failed';

export function wordsText(indent = '  '): string {
  return WORDS.map((w) => `${indent}${w.word}: ${w.meaning}`).join('\n');
}
