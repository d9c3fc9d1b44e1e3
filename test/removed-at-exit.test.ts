// What killpoint makes for its own process alone (a bundle of each user's module, a build of each
// workflow) goes when the process exits, however many modules one process checks: one exit
// listener for all of them (eleven made Node warn of a leak in a differential over seven modules).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('removes every file and folder given, at exit, with one listener however many are given', () => {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-removed-at-exit-'));
  dirs.push(dir);
  const paths = Array.from({ length: 20 }, (_, i) => join(dir, i % 2 === 0 ? `bundle-${i}.mjs` : `build-${i}`));
  for (const p of paths) writeFileSync(p, 'made for this process');
  const script = [
    `import { removedAtExit } from ${JSON.stringify(join(PROJECT_ROOT, 'src/harness/process/removed-at-exit.ts'))};`,
    `const before = process.listenerCount('exit');`,
    `for (const p of ${JSON.stringify(paths)}) removedAtExit(p);`,
    `console.log(process.listenerCount('exit') - before);`,
  ].join('\n');
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).not.toMatch(/MaxListenersExceededWarning/);
  expect(r.stdout.trim()).toBe('1');
  expect(paths.filter((p) => existsSync(p))).toEqual([]);
  expect(r.status).toBe(0);
});
