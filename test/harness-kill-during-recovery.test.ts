// A bug only a kill during the recovery finds, in an agent of another language behind the kill
// protocol: the Python refund agent with --compact-on-resume rewrites its journal in place when it
// resumes, and a kill in the middle of that rewrite leaves the journal empty, so the next life
// starts the run afresh with a new run id, and its keys no longer match. Every single kill point
// passes; `killpoint harness --kills 2` finds it, with the minimal schedule (the refund's commit,
// then the compaction), the key that changed between lives, and the command that replays it.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

const AGENT = ['python3', 'agents/python/refund_agent.py', '--keys', '--compact-on-resume'];

function harness(args: string[]) {
  return spawnSync(process.execPath, ['bin/killpoint.mjs', 'harness', ...args, '--', ...AGENT], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 400_000 });
}

describe('a journal compacted in place on resume', () => {
  it('passes every single kill point', () => {
    const r = harness([]);
    expect(r.stdout).toMatch(/failures: none/);
    expect(r.status).toBe(0);
  }, 120_000);

  it('fails with a second kill during the recovery: the minimal schedule, the changed key, a replay that replays it', () => {
    const r = harness(['--kills', '2']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/kill schedule: 7, 0 \(shop-commit\[step-2\], journal-compact\)/);
    expect(r.stdout).toContain('refund O-1042/L1 was committed with key py-dana-0:step-2, key py-dana-2:step-2: the key changed between the commits');
    const replay = /replay: npx killpoint harness (.*)/.exec(r.stdout)![1]!;
    expect(replay).toBe('--schedule 7,0 -- python3 agents/python/refund_agent.py --keys --compact-on-resume');
    const again = harness(['--schedule', '7,0']);
    expect(again.status).toBe(1);
    expect(again.stdout).toMatch(/refund O-1042\/L1 committed twice/);
  }, 400_000);
});
