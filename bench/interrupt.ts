// Ctrl-C at moments spread over a whole check (test/interrupt-checks.test.ts runs a sample): the
// check is run once to its end to time it, then run again and sent SIGINT to its process group (as
// a terminal's Ctrl-C is) at each of N moments spread over that time, from its loading to its
// last scenario. Every try must end within 5 s, by SIGINT, with the interrupted line, leaving no
// process and no folder. Prints one line per try and the figures; exits 1 when any try fails.
//
//   npm run interrupt                               (LangGraph react/sync --kills 2 in process, 20 moments)
//   npm run interrupt -- --moments 10 --over 60     (10 moments over the first 60 s, without the timing run)
//   npm run interrupt -- --engine dbos --strategy pglite/workflow --kills 1
//   npm run interrupt -- --over 240 --parallel 3    (on a machine shared with other work)

import { endedWell, interruptCheck, interruptionLine } from '../test/interrupted-check.js';
import { spawnSync } from 'node:child_process';
import { PROJECT_ROOT } from '../src/model/load.js';

/** What a person waits for at most after Ctrl-C. */
const END_WITHIN_MS = 5_000;

function option(name: string, fallback: string | undefined): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

const check = ['check', '--engine', option('--engine', 'langgraph')!, '--strategy', option('--strategy', 'react/sync')!, '--kills', option('--kills', '2')!];
const moments = Number(option('--moments', '20'));
let overS = option('--over', undefined) === undefined ? NaN : Number(option('--over', undefined));

if (!Number.isFinite(overS)) {
  const started = performance.now(); // real clock: the moments are spread over the check's own time
  const whole = spawnSync(process.execPath, ['bin/killpoint.mjs', ...check], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 3_600_000 });
  overS = (performance.now() - started) / 1000; // real clock
  console.log(`killpoint ${check.join(' ')}: ${overS.toFixed(1)} s to its end uninterrupted (exit ${whole.status})`);
}

// Tries at once (--parallel): on a busy machine each check runs slower, so a moment lands earlier in
// its check than in the timing run, never past its end.
const parallel = Number(option('--parallel', '1'));
// The latest moments first: the tries that wait longest start first, and the last to start are short.
const queue = Array.from({ length: moments }, (_, i) => moments - 1 - i);
let well = 0;
let slowest = 0;
let finishedFirst = 0;
async function tries(): Promise<void> {
  for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
    const afterStartMs = Math.round((overS * 1000 * (i + 0.25)) / moments);
    const r = await interruptCheck(check, { afterStartMs });
    console.log(`${i + 1}/${moments} ${interruptionLine(r)}`);
    if (r.finishedFirst) finishedFirst++;
    else if (endedWell(r) && r.endMs! <= END_WITHIN_MS) well++;
    else if (r.stderrTail !== '') console.log(`   stderr: ${r.stderrTail.trim().split('\n').slice(-3).join(' | ')}`);
    if (r.endMs !== null) slowest = Math.max(slowest, r.endMs);
  }
}
await Promise.all(Array.from({ length: parallel }, tries));
const interrupted = moments - finishedFirst;
console.log(`${well}/${interrupted} interrupted checks ended within ${END_WITHIN_MS / 1000} s by SIGINT with the interrupted line and left nothing (slowest ${slowest} ms)${finishedFirst > 0 ? `; ${finishedFirst} finished before their moment` : ''}`);
process.exitCode = well === interrupted && interrupted > 0 ? 0 : 1;
