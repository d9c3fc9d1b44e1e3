// stdout that cannot be written (a full disk: /dev/full answers every write with ENOSPC) ends the
// command with one line on stderr and exit 2, never a stack trace: the report was not delivered.

import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

const FULL_DISK = '/dev/full';

function runIntoFullDisk(argv: string[]): { status: number | null; stderr: string } {
  const stdout = openSync(FULL_DISK, 'w');
  try {
    const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), ...argv], { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', stdout, 'pipe'], timeout: 60_000 });
    return { status: result.status, stderr: result.stderr };
  } finally {
    closeSync(stdout);
  }
}

describe.skipIf(!existsSync(FULL_DISK))('stdout on a full disk', () => {
  it.each([
    [['check', 'scenarios/lantern/T01-dana-torn-pad.json']],
    [['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--json']],
    [['estimate']],
    [['estimate', '--json']],
    [['--help']],
  ])('%j: exit 2 and one line naming the errno', (argv) => {
    const { status, stderr } = runIntoFullDisk(argv);
    expect(stderr).toBe('killpoint: cannot write stdout (ENOSPC)\n');
    expect(status).toBe(2);
  });
});
