// A bug only a kill during the recovery finds, in an agent of another language behind the kill
// protocol: the Python refund agent with --compact-on-resume rewrites its journal in place when it
// resumes, and a kill in the middle of that rewrite leaves the journal empty, so the next life
// starts the run afresh with a new run id, and its keys no longer match. Every single kill point
// passes; a second kill at the compaction fails for every first kill from the refund's commit to
// the answer, the refund's commit first. Here, a sample of the two-kill schedules (the compaction
// after every first kill from the one before the commit on and after every other first kill before
// it, and every second kill after the commit); `killpoint harness --kills 2`,
// which runs all of them (about a minute of processes) and prints the minimal schedule (the
// refund's commit, then the compaction) and the command that replays it, is
// `npm run harness:kill-during-recovery` (bench/harness-kill-during-recovery.ts), which checks
// that output.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventIdentities } from '../src/harness/check/kill-points.js';
import { externalSystem, externalTask } from '../src/harness/engines/external/engine.js';
import { inPool } from '../src/harness/process/pool.js';
import { judgeCase } from '../src/harness/search/explore.js';
import { runSchedule } from '../src/harness/session.js';
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

  it('fails with a second kill at the compaction after the refund is committed, and only there', async () => {
    // The agent as `killpoint harness` runs it: one process per life (its script named by its full path).
    const script = join(PROJECT_ROOT, AGENT[1]!);
    const agent = { name: AGENT.join(' '), command: AGENT[0]!, args: [script, ...AGENT.slice(2)], lifeTimeoutMs: 120_000 };
    const system = externalSystem(agent);
    const task = externalTask(agent);
    const baseline = await runSchedule(system, task, { kills: [], interleaving: [] });
    const ids = eventIdentities(baseline.lives[0]!.events);
    const commit = ids.indexOf('shop-commit[step-2]');
    const answer = ids.indexOf('answer-delivered');
    expect(commit).toBeGreaterThan(0);
    expect(answer).toBe(ids.length - 1);
    // A second kill at the recovery's first event (the compaction, wherever there is a journal
    // to compact) after every first kill from the one before the commit to the last that leaves a
    // recovery to run, and after every other one before (before anything included: nothing to
    // compact there); and every other second kill of the recovery after the commit itself.
    const afterCommit = await runSchedule(system, task, { kills: [commit], interleaving: [] });
    expect(eventIdentities(afterCommit.lives[1]!.events)[0]).toBe('journal-compact');
    const firstKills = Array.from({ length: answer + 1 }, (_, i) => i - 1).filter((k) => k >= commit - 1 || k % 2 !== 0);
    // Every first kill at the edge of the failing ones and in them: the last that passes, the commit, up to the answer.
    expect(firstKills).toEqual(expect.arrayContaining(Array.from({ length: answer - commit + 1 }, (_, i) => commit - 1 + i)));
    expect(firstKills).toContain(-1);
    const schedules = [
      ...firstKills.map((k) => [k, 0]),
      ...Array.from({ length: afterCommit.lives[1]!.events.length + 1 }, (_, j) => [commit, j - 1]).filter(([, k]) => k !== 0),
    ];
    const judged = await inPool(schedules, 2, async (kills) => judgeCase(task, system, { kills, interleaving: [] }, baseline));
    // Every second kill landed in its recovery, and the third life ran to its end.
    for (const j of judged) expect({ kills: j.schedule.kills, lives: j.outcome.lives.map((l) => l.end) }).toEqual({ kills: j.schedule.kills, lives: ['killed', 'killed', 'finished'] });
    const failing = judged.filter((j) => j.broken.length > 0);
    // From the refund's commit to the answer (not delivered yet), a kill mid-compaction repeats the refund.
    expect(failing.map((j) => j.schedule.kills)).toEqual(Array.from({ length: answer - commit }, (_, i) => [commit + i, 0]));
    for (const j of failing) expect(j.broken).toEqual(['done-twice', 'different-answer']);
    // Not a vacuous pass: the rest of the sample ran, killed twice, and kept every promise.
    expect(judged.length - failing.length).toBeGreaterThan(failing.length);
  }, 400_000);

  it('the minimal schedule, replayed: the changed key, and a replay command that replays it', () => {
    const r = harness(['--schedule', '7,0']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/kill schedule: 7, 0 \(shop-commit\[step-2\], journal-compact\)/);
    expect(r.stdout).toContain('refund O-1042/L1 was committed with key py-dana-0:step-2, key py-dana-2:step-2: the key changed between the commits');
    expect(r.stdout).toMatch(/refund O-1042\/L1 committed twice/);
    const replay = /replay: npx killpoint harness (.*)/.exec(r.stdout)![1]!;
    expect(replay).toBe('--schedule 7,0 -- python3 agents/python/refund_agent.py --keys --compact-on-resume');
  }, 120_000);
});
