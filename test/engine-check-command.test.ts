// `killpoint check --engine dbos` and `--engine langgraph` get the whole search of the command
// line, as every engine behind the seam does: every kill point explored, the minimal counterexample
// with the replay command that replays it, a two-kill schedule (a kill during the recovery), and
// --save keeping the failure as a corpus entry that replays. On a one-refund task (a few dozen
// kill points), so that the real engines' lives stay few. The replay and the corpus entry run
// side by side (DBOS's replay command is only read: the corpus entry replays the same schedule). A command on PGlite exits as soon as it has printed: PGlite, served from its
// process, is stopped once no session holds it (it used to keep the process some 10 s longer).

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

const TASK = 'test/fixtures/one-refund.json';
const saved = mkdtempSync(join(tmpdir(), 'killpoint-engine-corpus-'));
afterAll(() => rmSync(saved, { recursive: true, force: true }));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from its last output to its exit. */
  lingered: number;
}

/** How long a command may live after its last output: its teardown, on a machine at half speed or worse. */
const EXIT_AFTER_OUTPUT_MS = 5_000;

/** The command line in a process of its own, its output collected; stopped after 300 s as a hung run. */
function killpoint(args: string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/killpoint.mjs', ...args], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let last = Date.now(); // real clock: how long the process outlives its output
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      last = Date.now(); // real clock: as above
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, lingered: Date.now() - last }); // real clock: as above
    });
  });
}

describe('the real engines behind the seam', () => {
  describe.each([
    { engine: 'dbos', broken: 'pglite/workflow+random-keys', keyed: 'pglite/workflow+keys' },
    { engine: 'langgraph', broken: 'react/sync+keys/next-only-resume', keyed: 'react/sync+keys' },
  ])('check --engine $engine', ({ engine, broken, keyed }) => {
    it('explores every kill point of a broken variant: exit 1, the minimal counterexample and the command that replays it, a corpus entry that replays', async ({ expect }) => {
      const dir = join(saved, engine);
      const r = await killpoint(['check', TASK, '--engine', engine, '--strategy', broken, '--save', dir]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`refund-one-mug ${broken.replace(/[+/]/g, '\\$&')}: FAIL`));
      expect(r.stdout).toMatch(/minimal counterexample:/);
      if (engine === 'dbos') expect(r.lingered).toBeLessThan(EXIT_AFTER_OUTPUT_MS);
      const replay = /replay: npx killpoint (check .*)/.exec(r.stdout)![1]!;
      expect(replay).toContain(`--engine ${engine} --strategy ${broken} --schedule `);
      const [entry] = readdirSync(dir);
      // The corpus entry and (the engine aside: the same command line, and DBOS's lives are
      // processes of seconds) the replay command, each in a process of its own, side by side.
      const [replayed, again] = await Promise.all([killpoint(['check', join(dir, entry!)]), engine === 'dbos' ? null : killpoint(replay.split(' '))]);
      expect(replayed.stdout).toMatch(/replays as expected/);
      expect(replayed.status).toBe(0);
      if (again !== null) {
        expect(again.status).toBe(1);
        expect(again.stdout).toMatch(/<-- KILL/);
      }
    }, 400_000);

    it('with keys, a kill in the gap and a second kill during the recovery leave every promise kept', async ({ expect }) => {
      const r = await killpoint(['check', TASK, '--engine', engine, '--strategy', keyed, '--schedule', 'shop-commit[call_refund],tool-start[call_refund]']);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/life 2 \(recovery 1\): \d+ events, killed after event \d+/);
      expect(r.stdout).toMatch(/life 3 \(recovery 2\)/);
      expect(r.status).toBe(0);
      if (engine === 'dbos') expect(r.lingered).toBeLessThan(EXIT_AFTER_OUTPUT_MS);
    }, 300_000);
  });
});
