// The command line behaves like the tools people know: --help/-h on every command and help
// <command> print usage on stdout (exit 0), --version prints the version, and no command at all
// prints usage on stderr with exit 2. Usage explains the words a newcomer meets.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { runMain } from './helpers.js';

/** The killpoint binary itself: what it prints on each stream and its exit status. */
function killpoint(...argv: string[]) {
  return spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), ...argv], { encoding: 'utf8', cwd: PROJECT_ROOT });
}

/** The same main in this process (each command's usage, twelve ways): its status and stdout. */
async function inProcess(...argv: string[]): Promise<{ status: number; stdout: string }> {
  const r = await runMain(argv);
  return { status: r.status, stdout: r.out.join('\n') };
}

describe('usage and version', () => {
  it.each([['--help'], ['-h'], ['help']])('%s: usage on stdout, exit 0, the words explained', (arg) => {
    const r = killpoint(arg);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/killpoint check/);
    expect(r.stdout).toMatch(/Lantern: Lantern Outfitters/);
    expect(r.stdout).toMatch(/Dana's task: T01/);
    expect(r.stdout).toMatch(/the chapter: /);
  });

  it.each(['experiment', 'estimate', 'check', 'harness'])('%s --help, -h and help %s: that command\'s usage, exit 0, nothing run', async (command) => {
    for (const argv of [[command, '--help'], [command, '-h'], ['help', command]]) {
      const r = await inProcess(...argv);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^usage: killpoint ${command}`));
      expect(r.stdout).toMatch(/ok means every check the system promises held/);
    }
  });

  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(killpoint('--version').stdout.trim()).toBe(`killpoint ${version}`);
  });

  it('no command: usage on stderr, nothing on stdout, exit 2', () => {
    const r = killpoint();
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^killpoint: expected a command\nusage:/);
  });

  it('an unknown command or help topic: stderr, exit 2', () => {
    expect(killpoint('chek').status).toBe(2);
    expect(killpoint('help', 'chek').stderr).toMatch(/unknown command "chek"/);
  });
});
