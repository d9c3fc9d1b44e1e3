// A user's project of its own, as the package tests make one: its commands run with none of this
// vitest run's settings, on the Node that runs this test (its folder first on PATH), and npm's cache
// warm for the one native addon (see warmNativeAddon).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../src/model/load.js';

export interface Ran {
  status: number | null;
  output: string;
}

/** The environment of a project of its own: none of this vitest run's settings, nor killpoint's. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS' && k !== 'TEST' && !k.startsWith('KILLPOINT_') && !(k.startsWith('npm_') && k !== 'npm_config_nodedir')));
  // The project runs on this test's Node, whichever it is (a CI leg runs the suite on 22 and 24).
  return { ...env, PATH: `${dirname(process.execPath)}:${env.PATH ?? ''}` };
}

/**
 * Packs this clone (`npm pack`, which builds dist/ first: `rm -rf dist`, then tsc) into `into`; the
 * tarball's path. One pack at a time across vitest's workers: two at once removed the dist/ the
 * other was packing, and `npm pack` failed (CI's Node 22 leg, four packing files in one run).
 */
export function packTarball(into: string): string {
  return oneAtATime(join(PROJECT_ROOT, 'node_modules', '.cache', 'killpoint-pack.lock'), () => {
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', into], { cwd: PROJECT_ROOT, env: cleanEnv(), encoding: 'utf8' }).trim().split('\n').at(-1)!;
    return join(into, name);
  });
}

/** How long a lock may be held before it is taken for one left by a run that died. */
const STALE_LOCK_MS = 300_000;

/** Runs `work` holding `lock` (a folder: made by one process at a time), waiting for it while another holds it. */
function oneAtATime<T>(lock: string, work: () => T): T {
  mkdirSync(dirname(lock), { recursive: true });
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    try {
      // real clock: a lock's age on disk
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    } catch {
      // Let go of meanwhile: try again.
    }
    Atomics.wait(sleeper, 0, 0, 200);
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Runs a command to its end, stdout and stderr together (a message may be on either). */
export function run(command: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/**
 * Where better-sqlite3's installer looks for a build it downloaded before (in npm's cache, by this
 * Node's ABI), and this clone's build of the same pinned version put there: compiling it again in
 * every project would cost a minute or more and test the C++ toolchain, not killpoint.
 */
export function warmNativeAddon(): void {
  const addonRoot = join(PROJECT_ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(addonRoot, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const url = `https://github.com/WiseLibs/better-sqlite3/releases/download/v${version}/${name}`;
  const cacheDir = execFileSync('npm', ['config', 'get', 'cache'], { env: cleanEnv(), encoding: 'utf8' }).trim();
  const util = createRequire(join(addonRoot, 'package.json'))('prebuild-install/util') as { cachedPrebuild(url: string): string };
  const previous = process.env.npm_config_cache;
  process.env.npm_config_cache = cacheDir;
  const cached = util.cachedPrebuild(url);
  if (previous === undefined) delete process.env.npm_config_cache;
  else process.env.npm_config_cache = previous;
  if (existsSync(cached) || !loadsHere(addonRoot)) return;
  mkdirSync(dirname(cached), { recursive: true });
  execFileSync('tar', ['czf', cached, 'build/Release/better_sqlite3.node'], { cwd: addonRoot });
}


/** Whether this clone's build of the addon is for this Node (a clone installed under another Node has another ABI's build: never cached under this one's name). */
function loadsHere(addonRoot: string): boolean {
  try {
    const Database = createRequire(join(addonRoot, 'package.json'))('better-sqlite3') as new (path: string) => { close(): void };
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}
