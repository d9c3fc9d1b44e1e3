// An interrupted parent leaves nothing behind: the child it was waiting on is killed and reaped,
// the run's temp folder is removed, and then the parent ends by the signal it got.

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
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    parents.push(parent);
    const childPid = await new Promise<number>((resolvePid, reject) => {
      parent.stdout.setEncoding('utf8');
      parent.stdout.on('data', (text: string) => {
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
