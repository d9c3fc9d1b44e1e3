// killpoint installed as its README says: the packed tarball, `npm install` with no flag, each in an
// empty project of its own, alone and beside each engine's packages. A contradiction among the
// optional peers (one peer's own peer outside killpoint's range) makes npm refuse the whole tree
// (ERESOLVE), and only a project of its own meets it: the examples' shared install
// (package-examples.test.ts) resolves every example's packages together, with our versions.
//
// Each project then runs `npx killpoint --help` and one check on the engine it installed.
//
// npm's cache is warm, as on any machine that has installed these packages once: the registry's
// tarballs are in it from this clone's `npm ci`, and the one native addon (better-sqlite3) is put
// where its installer looks for a downloaded build before compiling one, made from this clone's
// build of the same pinned version. Compiling it in every project would cost a minute each and test
// the C++ toolchain, not killpoint.

import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

const OURS = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; peerDependencies: Record<string, string> };
const T01 = 'node_modules/killpoint/scenarios/lantern/T01-dana-torn-pad.json';

/** Each engine's packages, at the versions killpoint is tested with (its own devDependencies). */
const ENGINE_PACKAGES: Record<string, readonly string[]> = {
  alone: [],
  dbos: ['@dbos-inc/dbos-sdk', '@electric-sql/pglite'],
  restate: ['@restatedev/restate-sdk', '@restatedev/restate-server'],
  'vercel-workflow': ['workflow', '@workflow/core', '@workflow/world-local', '@workflow/builders', '@workflow/utils', '@workflow/ai', 'ai', '@opentelemetry/api'],
};

/** The user's LangGraph project is the example's, whose package.json names LangGraph 1.7.3 and @langchain/core 1.4.0. */
const LANGGRAPH_EXAMPLE = join(PROJECT_ROOT, 'examples', 'support-agent-langgraph');

let work: string;
let tarball: string;
const installs = new Map<string, Promise<Ran>>();

interface Ran {
  status: number | null;
  output: string;
}

/** The environment of a project of its own: none of this vitest run's settings, nor killpoint's. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS' && k !== 'TEST' && !k.startsWith('KILLPOINT_') && !k.startsWith('npm_')));
}

/** Runs a command to its end, stdout and stderr together (a message may be on either). */
function run(command: string, args: string[], cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** Where better-sqlite3's installer looks for a build it downloaded before (in npm's cache), and the build put there. */
function warmNativeAddon(): void {
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
  if (existsSync(cached)) return;
  mkdirSync(dirname(cached), { recursive: true });
  execFileSync('tar', ['czf', cached, 'build/Release/better_sqlite3.node'], { cwd: addonRoot });
}

/** An empty project with killpoint from the tarball and `packages` at our tested versions, installed with a plain `npm install`. */
function installProject(name: string, packages: readonly string[]): Promise<Ran> {
  const dir = join(work, name);
  mkdirSync(dir);
  copyFileSync(tarball, join(dir, 'killpoint.tgz'));
  const devDependencies: Record<string, string> = { killpoint: 'file:killpoint.tgz' };
  for (const p of packages) devDependencies[p] = OURS.devDependencies[p]!;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `user-project-${name}`, private: true, type: 'module', devDependencies }, null, 2));
  return run('npm', ['install'], dir);
}

/** The example's project, copied as a user has it, with the tarball where its package.json expects it. */
function installLangGraphExample(): Promise<Ran> {
  const dir = join(work, 'langgraph');
  cpSync(LANGGRAPH_EXAMPLE, dir, { recursive: true, filter: (src) => !/node_modules|killpoint-corpus|\.tgz$/.test(src) });
  copyFileSync(tarball, join(dir, 'killpoint.tgz'));
  return run('npm', ['install'], dir);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'killpoint-install-'));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: PROJECT_ROOT, env: cleanEnv(), encoding: 'utf8' }).trim().split('\n').at(-1)!;
  tarball = join(work, name);
  warmNativeAddon();
  // The installs run side by side: each waits mostly on npm's cache and the registry's metadata.
  for (const [project, packages] of Object.entries(ENGINE_PACKAGES)) installs.set(project, installProject(project, packages));
  installs.set('langgraph', installLangGraphExample());
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(installs.values());
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The project's install, which must have exited 0 (its output shown otherwise). */
async function installed(project: string): Promise<string> {
  const ran = await installs.get(project)!;
  expect(ran.output).not.toMatch(/ERESOLVE/);
  expect(ran.status, ran.output).toBe(0);
  return join(work, project);
}

async function npx(dir: string, ...args: string[]): Promise<Ran> {
  return run('npx', ['killpoint', ...args], dir);
}

describe('the tarball installed with a plain npm install, in an empty project of its own', () => {
  test('killpoint alone: --help, a check by its own runner, and an engine not installed refused naming its packages', async () => {
    const dir = await installed('alone');
    const help = await npx(dir, '--help');
    expect(help.status).toBe(0);
    expect(help.output).toMatch(/killpoint check/);
    const check = await npx(dir, 'check', T01, '--strategy', 'journal+keys');
    expect(check.status, check.output).toBe(0);
    const langgraph = await npx(dir, 'check', T01, '--engine', 'langgraph', '--strategy', 'react/sync+keys');
    expect(langgraph.status, langgraph.output).toBe(2);
    expect(langgraph.output).toMatch(/langgraph: @langchain\/core, @langchain\/langgraph, @langchain\/langgraph-checkpoint-sqlite, zod are not installed; install with: npm install --save-dev @langchain\/core/);
    const dbos = await npx(dir, 'check', T01, '--engine', 'dbos', '--strategy', 'pglite/workflow+keys');
    expect(dbos.status, dbos.output).toBe(2);
    expect(dbos.output).toMatch(/dbos: @dbos-inc\/dbos-sdk, @electric-sql\/pglite are not installed/);
  }, 300_000);

  test('beside LangGraph 1.7.3 and @langchain/core 1.4.0: the user\'s graph checked by the CLI and from one vitest line', async () => {
    const dir = await installed('langgraph');
    expect((await npx(dir, '--help')).status).toBe(0);
    const check = await npx(dir, 'check', '--langgraph', 'src/agent-keyed.ts', '--input', 'input.json', '--interleavings', '1');
    expect(check.status, check.output).toBe(0);
    const vitest = await run('npx', ['vitest', 'run', '-t', 'support agent with keys'], dir);
    expect(vitest.status, vitest.output).toBe(0);
    expect(vitest.output).toMatch(/passed/);
  }, 300_000);

  // One kill at the gap (the refund's commit) with keys: the check runs the engine for real.
  test.each(['dbos pglite/workflow+keys', 'restate service+keys', 'vercel-workflow steps+keys'])('beside %s\'s packages: --help and one check', async (engineAndStrategy) => {
    const [engine, strategy] = engineAndStrategy.split(' ') as [string, string];
    const dir = await installed(engine);
    expect((await npx(dir, '--help')).status).toBe(0);
    const check = await npx(dir, 'check', T01, '--engine', engine, '--strategy', strategy, '--schedule', 'shop-commit[call_refund]');
    expect(check.status, check.output).toBe(0);
    expect(check.output).toMatch(/every promised check holds/);
  }, 300_000);
});

describe('the versions installed', () => {
  test('each engine package a project installs is an optional peer of killpoint, at a version its range admits', () => {
    for (const p of Object.values(ENGINE_PACKAGES).flat()) {
      expect(OURS.peerDependencies[p], p).toBeDefined();
      expect(OURS.peerDependencies[p], p).toBe(`^${OURS.devDependencies[p]}`);
    }
  });
});
