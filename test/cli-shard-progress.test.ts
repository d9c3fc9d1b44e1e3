// Long work on the command line: --shard i/n splits a check among the machines of a CI matrix
// (every unit in exactly one shard, as vitest --shard splits files) and `killpoint merge` joins
// their JSON into the report one machine would have printed; a progress line with done/total and
// the time left goes to stderr only for a person at a terminal; and a reader that goes away
// (`check | head -1`) stops the work instead of letting it run to its end.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/harness/cli/main.js';
import { parseShard, shardOf } from '../src/harness/cli/options.js';
import { formatDuration, progressLine, startProgress } from '../src/harness/cli/progress.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { captureConsole } from './helpers.js';

const out = captureConsole();
const dir = mkdtempSync(join(tmpdir(), 'killpoint-shard-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';
const GRACE = 'scenarios/lantern/T02-grace-refund-blocked.json';
const IVAN = 'scenarios/lantern/T03-ivan-two-orders.json';

async function json(args: string[]): Promise<{ status: number; value: unknown }> {
  out.clear();
  const status = await main(args);
  return { status, value: JSON.parse(out.text()) };
}

describe('--shard i/n', () => {
  it('is read strictly: i/n with 1 <= i <= n', () => {
    expect(parseShard('2/3', '--shard')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '1/0', 'a/b', ' 1/3', '1/3/4', '']) expect(() => parseShard(bad, '--shard'), bad).toThrow(/--shard: expected i\/n with 1 <= i <= n/);
  });

  it('puts every unit in exactly one shard, in order, in runs of ceil(N/n)', () => {
    for (const total of [0, 1, 5, 70]) {
      for (const count of [1, 2, 3, 7]) {
        const units = Array.from({ length: total }, (_, i) => i);
        const shards = Array.from({ length: count }, (_, i) => shardOf(units, { index: i + 1, count }));
        expect(shards.flat()).toEqual(units);
        for (const s of shards) expect(s.length).toBeLessThanOrEqual(Math.ceil(total / count));
      }
    }
  });

  it("check's shards, merged, are the report of the whole check; a shard missing or given twice is refused", async () => {
    const files = [DANA, GRACE, IVAN];
    const whole = await json(['check', ...files, '--strategy', 'journal', '--strategy', 'journal+random-keys', '--json']);
    expect(whole.status).toBe(1);
    const shardFiles: string[] = [];
    for (const i of [1, 2, 3, 4]) {
      const shard = await json(['check', ...files, '--strategy', 'journal', '--strategy', 'journal+random-keys', '--json', '--shard', `${i}/4`]);
      expect(shard.value).toMatchObject({ shard: { index: i, count: 4 }, units: 6 });
      const file = join(dir, `shard-${i}.json`);
      writeFileSync(file, JSON.stringify(shard.value));
      shardFiles.push(file);
    }
    const merged = await json(['merge', '--json', ...[...shardFiles].reverse()]);
    expect(merged.status).toBe(1);
    expect(merged.value).toEqual(whole.value);

    out.clear();
    expect(await main(['merge', ...shardFiles])).toBe(1);
    expect(out.text()).toMatch(/T01 journal\+random-keys: FAIL \(done twice.*\n  replay: npx killpoint check/);
    expect(out.text()).toMatch(/4 shards, 6 results: 3 broke a promised check/);

    out.clear();
    expect(await main(['merge', shardFiles[0]!, shardFiles[1]!, shardFiles[3]!])).toBe(2);
    expect(out.text()).toMatch(/shard 3\/4 is missing/);
    out.clear();
    expect(await main(['merge', ...shardFiles, shardFiles[2]!])).toBe(2);
    expect(out.text()).toMatch(/shard 3\/4 is given twice/);

    // A shard of another split (here: two kills instead of one) is refused, naming what differs.
    const other = await json(['check', ...files, '--strategy', 'journal', '--strategy', 'journal+random-keys', '--json', '--shard', '4/4', '--kills', '2']);
    const otherFile = join(dir, 'other-4.json');
    writeFileSync(otherFile, JSON.stringify(other.value));
    out.clear();
    expect(await main(['merge', shardFiles[0]!, shardFiles[1]!, shardFiles[2]!, otherFile])).toBe(2);
    expect(out.text()).toMatch(/other-4\.json: split: expected the split of .*shard-1\.json: the same scenarios, systems, --kills, --interleavings and --seed/);
  }, 180_000); // six checks: seconds idle, over a minute once on a 2-core machine busy with more than the suite

  it('merge names the file and field of a report it cannot read', async () => {
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'nope');
    const notReport = join(dir, 'other.json');
    writeFileSync(notReport, JSON.stringify([{ scenario: 'T01' }]));
    expect(await main(['merge', notJson])).toBe(2);
    expect(out.text()).toMatch(/not\.json: \(file\): expected a readable JSON file written by killpoint check --json/);
    out.clear();
    expect(await main(['merge', notReport])).toBe(2);
    expect(out.text()).toMatch(/other\.json: results\[0\]\.ok: expected true or false/);
    out.clear();
    expect(await main(['merge'])).toBe(2);
    expect(await main(['check', DANA, '--shard', '1/2', '--schedule', '5'])).toBe(2);
  });
});

describe('the progress line', () => {
  it('says done/total and the time left from the mean time per unit so far', () => {
    expect(progressLine('killpoint check', 0, 70, 0)).toBe('killpoint check: 0/70 (0%)');
    expect(progressLine('killpoint check', 14, 70, 10_000, 'T02 journal')).toBe('killpoint check: 14/70 (20%), about 40 s left (T02 journal)');
    expect(formatDuration(185)).toBe('3 min 5 s');
    expect(formatDuration(3720)).toBe('1 h 2 min');
  });

  it('is written only to a terminal (or when asked), rewritten in place and cleared at the end', () => {
    const written: string[] = [];
    const tty = { isTTY: true, write: (t: string) => void written.push(t) };
    let clock = 0;
    const p = startProgress('sweep', 2, { stream: tty, env: {}, now: () => clock });
    clock = 1000;
    p.tick('a');
    clock = 2000;
    p.tick('b');
    p.end();
    expect(written).toEqual(['\rsweep: 1/2 (50%), about 1 s left (a)\x1b[K', '\rsweep: 2/2 (100%), about 0 s left (b)\x1b[K', '\r\x1b[K']);

    // Cleared for a moment before a report goes to stdout on the same screen, drawn again at the next tick.
    written.length = 0;
    const q = startProgress('sweep', 2, { stream: tty, env: {}, now: () => 0 });
    q.clear();
    q.tick();
    q.clear();
    q.clear();
    q.end();
    expect(written).toEqual(['\rsweep: 1/2 (50%), about 0 s left\x1b[K', '\r\x1b[K']);

    const log: string[] = [];
    const pipe = { isTTY: false, write: (t: string) => void log.push(t) };
    startProgress('sweep', 2, { stream: pipe, env: {} }).tick();
    startProgress('sweep', 2, { stream: tty, env: { KILLPOINT_PROGRESS: '0' } }).tick();
    expect(log).toEqual([]);
    startProgress('sweep', 2, { stream: pipe, env: { KILLPOINT_PROGRESS: '1' } }).tick();
    expect(log).toHaveLength(1);
  });

  it('stays out of a CI log: check with stderr a pipe writes nothing there', () => {
    const r = spawnSync(process.execPath, ['bin/killpoint.mjs', 'check', DANA, '--strategy', 'journal'], { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, KILLPOINT_PROGRESS: '' } });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('a reader that goes away', () => {
  it('stops the check: `check --kills 2 | head -1` does not run to the end', async () => {
    // Every bundled task under every strategy, up to two kills: 70 units of work. The progress
    // line (asked for, as stderr is a pipe here) says how far the check got before it stopped.
    const child = spawn(process.execPath, ['bin/killpoint.mjs', 'check', '--kills', '2'], { cwd: PROJECT_ROOT, env: { ...process.env, KILLPOINT_PROGRESS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t: string) => void (stderr += t));
    child.stdout.once('data', () => child.stdout.destroy()); // head -1: read a line, then go
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    expect(status).toBe(0);
    const counts = [...stderr.matchAll(/killpoint check: (\d+)\/70/g)].map((m) => Number(m[1]));
    expect(counts.length).toBeGreaterThan(0);
    // Short of the end: how far short depends on how busy the machine is (idle, under 35 units;
    // once 50, with both cores taken by other work).
    expect(Math.max(...counts)).toBeLessThan(70);
    expect(stderr).not.toMatch(/EPIPE|Error/);
  }, 120_000);
});
