// An interrupted parent leaves nothing behind: the child it was waiting on is killed and reaped,
// the run's temp folder is removed, the parent says it was interrupted (the run it was waiting on
// ends as interrupted, not as a crash of the harness), and then it ends by the signal it got (a
// shell reads 130 for SIGINT).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The real tier's temp folders (a loader may keep a cache folder of its own there too). */
function runDirs(root: string): string[] {
  return readdirSync(root).filter((name) => name.startsWith('killpoint-'));
}

// A failed test must not leave its parent running.
const parents: ChildProcess[] = [];
afterEach(() => {
  for (const p of parents.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

async function interrupt(signal: NodeJS.Signals): Promise<void> {
  const tempRoot = mkdtempSync(join(tmpdir(), 'killpoint-interrupt-test-'));
  try {
    // tsx as a loader in this one process (its CLI would add a process in between).
    const parent = spawn(process.execPath, ['--import', 'tsx', join('test', 'fixtures', 'interrupted-parent.ts')], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TMPDIR: tempRoot },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    parent.stderr.setEncoding('utf8');
    parent.stderr.on('data', (t: string) => void (stderr += t));
    parents.push(parent);
    const childPid = await new Promise<number>((resolvePid, reject) => {
      parent.stdout.setEncoding('utf8');
      parent.stdout.on('data', (text: string) => {
        stdout += text;
        const m = /child (\d+)/.exec(text);
        if (m) resolvePid(Number(m[1]));
      });
      parent.on('exit', () => reject(new Error('the parent ended before starting a child')));
    });
    expect(alive(childPid)).toBe(true);
    expect(runDirs(tempRoot)).toHaveLength(1);
    const ended = new Promise<NodeJS.Signals | null>((r) => parent.on('exit', (_code, s) => r(s)));
    parent.kill(signal);
    expect(await ended).toBe(signal);
    expect(stderr).toContain(`killpoint: interrupted (${signal}): the running child was killed and the run's temp folders removed; no verdict was reached`);
    expect(stdout).not.toMatch(/crashed/);
    expect(alive(childPid)).toBe(false);
    expect(runDirs(tempRoot)).toEqual([]);
  } finally {
    rmSync(tempRoot, { recursive: true, force: true });
  }
}

describe('interrupting the parent of a real run', () => {
  it('on SIGTERM kills and reaps the child and removes the temp folder', async () => {
    await interrupt('SIGTERM');
  });
  it('on SIGINT does the same', async () => {
    await interrupt('SIGINT');
  });
});
