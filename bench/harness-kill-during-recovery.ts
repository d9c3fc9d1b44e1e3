// The whole two-kill search of test/harness-kill-during-recovery.test.ts (the test runs a sample
// of its schedules): `killpoint harness --kills 2` on the Python refund agent that compacts its
// journal in place on resume must find the bug only a kill during the recovery finds, with the
// minimal schedule (the refund's commit, then the compaction), the key that changed between lives
// and a replay command that replays it. Every single kill point must pass. Prints what it found
// and exits 1 when any of that is not so.
//
//   npm run harness:kill-during-recovery        (every one- and two-kill schedule: about a minute on 2 cores)

import { spawnSync } from 'node:child_process';
import { PROJECT_ROOT } from '../src/model/load.js';

const AGENT = ['python3', 'agents/python/refund_agent.py', '--keys', '--compact-on-resume'];

function harness(args: string[]) {
  return spawnSync(process.execPath, ['bin/killpoint.mjs', 'harness', ...args, '--', ...AGENT], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 1_800_000 });
}

const problems: string[] = [];
const expect = (ok: boolean, what: string): void => {
  if (!ok) problems.push(what);
};

const started = performance.now(); // real clock: this script reports how long the search took
const single = harness([]);
expect(single.status === 0 && /failures: none/.test(single.stdout), `every single kill point passes (exit ${single.status}):\n${single.stdout}${single.stderr}`);

const two = harness(['--kills', '2']);
process.stdout.write(two.stdout);
expect(two.status === 1, `harness --kills 2 exits 1, got ${two.status}${two.stderr ? `: ${two.stderr}` : ''}`);
expect(/kill schedule: 7, 0 \(shop-commit\[step-2\], journal-compact\)/.test(two.stdout), 'the minimal schedule is 7, 0 (shop-commit[step-2], journal-compact)');
expect(two.stdout.includes('refund O-1042/L1 was committed with key py-dana-0:step-2, key py-dana-2:step-2: the key changed between the commits'), 'the key that changed between the commits is named');
const replay = /replay: npx killpoint harness (.*)/.exec(two.stdout)?.[1];
expect(replay === '--schedule 7,0 -- python3 agents/python/refund_agent.py --keys --compact-on-resume', `the replay command is --schedule 7,0 -- ${AGENT.join(' ')}, got ${replay}`);
if (replay !== undefined) {
  const again = harness(replay.replace(/ -- .*$/, '').split(' '));
  expect(again.status === 1 && /refund O-1042\/L1 committed twice/.test(again.stdout), `the replay command replays the failure (exit ${again.status})`);
}
const seconds = (performance.now() - started) / 1000; // real clock
console.log(problems.length === 0
  ? `harness, a kill during the recovery: found at the minimal schedule 7, 0 and replayed (${seconds.toFixed(0)} s)`
  : `harness, a kill during the recovery: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
process.exitCode = problems.length === 0 ? 0 : 1;
