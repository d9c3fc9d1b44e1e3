// Corpus entries that cannot mean what they say, and --save folders that cannot keep them: a kill
// point past the end of the run is a stale entry (bad input), never a replay "as expected"; two
// minimal cases that share a name are both kept; a folder that cannot be written is refused before
// anything is explored, in one line, and never hangs.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LANTERN_DIR, PROJECT_ROOT } from '../src/model/load.js';
import { CorpusError, loadCorpusEntry, replayEntry } from '../src/harness/search/corpus.js';
import { runMain } from './helpers.js';

const FIXTURES = 'test/fixtures/input-faults';
const DANA_FILE = join(LANTERN_DIR, 'T01-dana-torn-pad.json');

/** Runs the killpoint command as a process, bounded in time: a bug here could spin for ever. */
function runCommand(argv: string[]): { status: number | null; stdout: string; stderr: string; timedOut: boolean } {
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), ...argv], { encoding: 'utf8', cwd: PROJECT_ROOT, timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, timedOut: result.error !== undefined };
}

const scratch = mkdtempSync(join(tmpdir(), 'killpoint-input-faults-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a corpus entry whose kill point lies past the end of the run', () => {
  it('is refused as stale by the replay, naming the file and the run\'s length', async () => {
    const entry = loadCorpusEntry(join(FIXTURES, 'stale-kill.json'));
    await expect(async () => replayEntry(entry)).rejects.toThrow(CorpusError);
    await expect(async () => replayEntry(entry)).rejects.toThrow(
      'test/fixtures/input-faults/stale-kill.json: schedule.kills[0] is 9999 but the run has 73 events (kill points -1 to 72): the entry is stale',
    );
  });

  it('names the recovery whose kill point never came', async () => {
    const entry = loadCorpusEntry(join(FIXTURES, 'stale-recovery-kill.json'));
    await expect(async () => replayEntry(entry)).rejects.toThrow(
      /^test\/fixtures\/input-faults\/stale-recovery-kill\.json: schedule\.kills\[1\] is 9999 but life 2 \(the first recovery\) has (\d+) events \(kill points -1 to \d+\): the entry is stale$/,
    );
  });

  it('makes killpoint check exit 2 with that one line', async () => {
    const { status, out, err } = await runMain(['check', join(FIXTURES, 'stale-kill.json')]);
    expect(err).toEqual(['killpoint check: test/fixtures/input-faults/stale-kill.json: schedule.kills[0] is 9999 but the run has 73 events (kill points -1 to 72): the entry is stale']);
    expect(out.join('\n')).not.toMatch(/replays as expected/);
    expect(status).toBe(2);
  });
});

describe('check --save with two failing scenario files of the same id', () => {
  // Two copies of Dana's task in two folders: the same id, so the same entry name.
  const copies = ['first', 'second'].map((folder) => {
    const dir = join(scratch, folder);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'T01.json');
    writeFileSync(file, readFileSync(DANA_FILE, 'utf8'));
    return file;
  });
  const saveDir = join(scratch, 'kept');
  const save = () => runMain(['check', ...copies, '--strategy', 'journal+random-keys', '--save', saveDir]);

  it('keeps both entries under names of their own, each replaying its own file', async () => {
    const { status } = await save();
    expect(status).toBe(1);
    const names = readdirSync(saveDir).sort();
    expect(names).toHaveLength(2);
    const scenarios = names.map((n) => JSON.parse(readFileSync(join(saveDir, n), 'utf8')).scenario);
    expect(scenarios.sort()).toEqual([...copies].sort());
    const replay = await runMain(['check', ...names.map((n) => join(saveDir, n))]);
    expect(replay.out.filter((l) => / replays as expected /.test(l))).toHaveLength(2);
    expect(replay.status).toBe(0);
  });

  it('does not add a copy when the same case is saved again', async () => {
    await save();
    expect(readdirSync(saveDir)).toHaveLength(2);
  });
});

describe('check --save into a folder that cannot be written', () => {
  it.each([
    ['under /proc, where mkdir says ENOENT though the parent exists', '/proc/killpoint-corpus', 'ENOENT'],
    ['under a path that is a file', `${DANA_FILE}/corpus`, 'ENOTDIR'],
  ])('%s: exit 2 in one line before anything is explored', (_, dir, code) => {
    const { status, stdout, stderr, timedOut } = runCommand(['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--strategy', 'journal+random-keys', '--save', dir]);
    expect(timedOut).toBe(false);
    expect(stderr.trimEnd().split('\n')).toEqual([`killpoint check: --save: cannot keep corpus entries in ${dir}: mkdir failed (${code})`]);
    expect(stdout).toBe('');
    expect(status).toBe(2);
  });

  it('creates a missing folder and leaves nothing in it when nothing fails', async () => {
    const dir = join(scratch, 'new', 'nested');
    const { status } = await runMain(['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--strategy', 'journal+keys', '--save', dir]);
    expect(status).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
