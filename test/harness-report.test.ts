// A harness gets what check has: a repeat the agent's shop refused is reported with the shop's
// reason, from the tool-result event that carries it ("refused": reason; the Python agent with
// --single-pad has one pad on the line, so the repeat after a kill in the gap is refused), and
// --save keeps the minimal case as a corpus entry that `killpoint check` replays.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

it('--save keeps the minimal case as a corpus entry of the external engine, which check replays', () => {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-harness-corpus-'));
  try {
    const r = spawnSync(process.execPath, ['bin/killpoint.mjs', 'harness', '--save', dir, '--', 'python3', 'agents/python/refund_agent.py'], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(1);
    const [file] = readdirSync(dir);
    expect(r.stdout).toContain(`kept as a corpus entry: ${join(dir, file!)}`);
    const entry = JSON.parse(readFileSync(join(dir, file!), 'utf8')) as Record<string, unknown>;
    expect(entry).toMatchObject({ engine: 'external', strategy: 'python3 agents/python/refund_agent.py', schedule: { kills: [5], killAt: ['shop-commit[step-2]'] } });
    expect(entry.scenario).toBeUndefined();
    const replay = spawnSync(process.execPath, ['bin/killpoint.mjs', 'check', join(dir, file!)], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(replay.stdout).toContain('replays as expected');
    expect(replay.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

it("a refused repeat is reported with the shop's reason, in the events and in what differs", () => {
  const r = spawnSync(process.execPath, ['bin/killpoint.mjs', 'harness', '--schedule', 'shop-commit[step-2]', '--', 'python3', 'agents/python/refund_agent.py', '--single-pad'], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stdout).toMatch(/life 2 \(recovery 1\)[^]*refund step-2: result \(refused: over-refund\)/);
  expect(r.stdout).toContain("1 repeat refused by the shop's rules (over-refund)");
  expect(r.stdout).not.toMatch(/committed twice/);
}, 60_000);

it('a harness named by its command line comes back as the same words, spaces and quotes in them included', async () => {
  const { shellWord, shellWords } = await import('../src/harness/shell-words.js');
  for (const words of [['python3', 'agents/python/refund_agent.py', '--keys'], ['node', '/tmp/my agent.js'], ['sh', '-c', "echo it's done"], ['a', '']]) {
    expect(shellWords(words.map(shellWord).join(' '))).toEqual(words);
  }
  expect(shellWords("node 'unclosed")).toBeUndefined();
});
