// killpoint installed as its README says: the packed tarball, `npm install` with no flag, each in an
// empty project of its own, alone and beside each engine's packages. A contradiction among the
// optional peers (one peer's own peer outside killpoint's range) makes npm refuse the whole tree
// (ERESOLVE), and only a project of its own meets it: the examples' shared install
// (package-examples.test.ts) resolves every example's packages together, with our versions.
//
// Each project then runs `npx killpoint --help` and one check on the engine it installed.
// `npm test` installs two projects: killpoint alone and the LangGraph example's. The projects
// beside DBOS, Restate and Vercel Workflow (a minute or more of CPU each) are installed by
// `npm run installs` (KILLPOINT_INSTALLS=engines: those three alone), which CI runs after
// `npm test`; CI's legs of other Nodes install all five (KILLPOINT_INSTALLS=all).
//
// npm's cache is warm, as on any machine that has installed these packages once: the registry's
// tarballs are in it from this clone's `npm ci`, and the one native addon (better-sqlite3) is put
// where its installer looks for a downloaded build before compiling one, made from this clone's
// build of the same pinned version. Compiling it in every project would cost a minute each and test
// the C++ toolchain, not killpoint.

import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { packTarball, run, warmNativeAddon, type Ran } from './user-project.js';

const OURS = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; peerDependencies: Record<string, string> };
const T01 = 'node_modules/killpoint/scenarios/lantern/T01-dana-torn-pad.json';

/** Each engine's packages, at the versions killpoint is tested with (its own devDependencies). */
const ENGINE_PACKAGES: Record<string, readonly string[]> = {
  alone: [],
  dbos: ['@dbos-inc/dbos-sdk', '@electric-sql/pglite'],
  restate: ['@restatedev/restate-sdk', '@restatedev/restate-server'],
  'vercel-workflow': ['workflow', '@workflow/core', '@workflow/world-local', '@workflow/builders', '@workflow/utils', '@workflow/ai', 'ai', '@opentelemetry/api'],
};

/** Which projects are installed: the sample (killpoint alone, the LangGraph example's), the engines' or all. */
const WHICH = process.env.KILLPOINT_INSTALLS ?? 'sample';
if (!['sample', 'engines', 'all'].includes(WHICH)) throw new Error(`KILLPOINT_INSTALLS: expected sample, engines or all, got "${WHICH}"`);
const SAMPLE = new Set(['alone', 'langgraph']);
const installsProject = (project: string): boolean => WHICH === 'all' || SAMPLE.has(project) === (WHICH === 'sample');

/** The user's LangGraph project is the example's, whose package.json names LangGraph 1.7.3 and @langchain/core 1.4.0. */
const LANGGRAPH_EXAMPLE = join(PROJECT_ROOT, 'examples', 'support-agent-langgraph');

let work: string;
let tarball: string;
const installs = new Map<string, Promise<Ran>>();

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
  tarball = packTarball(work);
  warmNativeAddon();
  // The installs run side by side: each waits mostly on npm's cache and the registry's metadata.
  for (const [project, packages] of Object.entries(ENGINE_PACKAGES)) if (installsProject(project)) installs.set(project, installProject(project, packages));
  if (installsProject('langgraph')) installs.set('langgraph', installLangGraphExample());
}, 60_000);

// The installs under way are awaited before their folders go (a test filtered out still started its install).
afterAll(async () => {
  await Promise.allSettled(installs.values());
  if (work) rmSync(work, { recursive: true, force: true });
}, 300_000);

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
  test.runIf(installsProject('alone'))('killpoint alone: --help, a check by its own runner, and an engine not installed refused naming its packages', async () => {
    const dir = await installed('alone');
    // One range, two majors: npm takes 13 (N-API builds inside the package) where its engines admit
    // the Node, and 12 (a build of its own for this Node's ABI) on Node 20.
    const sqlite = JSON.parse(readFileSync(join(dir, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string };
    expect(sqlite.version.split('.')[0]).toBe(Number(process.versions.node.split('.')[0]) >= 22 ? '13' : '12');
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

  test.runIf(installsProject('langgraph'))('beside LangGraph 1.7.3 and @langchain/core 1.4.0: the user\'s graph checked by the CLI and from one vitest line', async () => {
    const dir = await installed('langgraph');
    expect((await npx(dir, '--help')).status).toBe(0);
    const check = await npx(dir, 'check', '--langgraph', 'src/agent-keyed.ts', '--input', 'input.json', '--interleavings', '1');
    expect(check.status, check.output).toBe(0);
    const vitest = await run('npx', ['vitest', 'run', '-t', 'support agent with keys'], dir);
    expect(vitest.status, vitest.output).toBe(0);
    expect(vitest.output).toMatch(/passed/);
  }, 300_000);

  // One kill at the gap (the refund's commit) with keys: the check runs the engine for real.
  test.runIf(installsProject('dbos')).each(['dbos pglite/workflow+keys', 'restate service+keys', 'vercel-workflow steps+keys'])('beside %s\'s packages: --help and one check (npm run installs)', async (engineAndStrategy) => {
    const [engine, strategy] = engineAndStrategy.split(' ') as [string, string];
    const dir = await installed(engine);
    expect((await npx(dir, '--help')).status).toBe(0);
    const check = await npx(dir, 'check', T01, '--engine', engine, '--strategy', strategy, '--schedule', 'shop-commit[call_refund]');
    expect(check.status, check.output).toBe(0);
    expect(check.output).toMatch(/every promised check holds/);
  }, 300_000);
});

describe('the versions installed', () => {
  test.runIf(WHICH !== 'engines')('each engine package a project installs is an optional peer of killpoint, at a version its range admits', () => {
    for (const p of Object.values(ENGINE_PACKAGES).flat()) {
      expect(OURS.peerDependencies[p], p).toBeDefined();
      // From the version tested here; a later major only where a test installs it (ai 7: ai-sdk7-project.test.ts).
      expect(OURS.peerDependencies[p], p).toMatch(new RegExp(`^\\^${OURS.devDependencies[p]!.replaceAll('.', '\\.')}( \\|\\| \\^\\d+\\.\\d+\\.\\d+)?$`));
    }
  });
});
