// killpoint installed as its README says: the packed tarball, `npm install` with no flag, each in an
// empty project of its own, alone and beside each engine's packages. A contradiction among the
// optional peers (one peer's own peer outside killpoint's range) makes npm refuse the whole tree
// (ERESOLVE), and only a project of its own meets it: the examples' shared install
// (package-examples.test.ts) resolves every example's packages together, with our versions.
//
// Each project then runs `npx killpoint --help` and one check on the engine it installed. Three
// more are a user's own on versions older than ours, whose packages must stay theirs: a LangGraph
// graph on zod 3 (test/fixtures/zod3-project), the AI SDK example on ai 6.0.52, and a Vercel
// workflow with no model beside the Workflow SDK alone (no @workflow/ai, no ai).
// `npm test` installs two projects: killpoint alone and the LangGraph example's. The projects
// beside DBOS, Restate and Vercel Workflow (a minute or more of CPU each) are installed by
// `npm run installs` (KILLPOINT_INSTALLS=engines: those three alone), which CI runs after
// `npm test`, with the three on older versions; CI's legs of other Nodes install all eight
// (KILLPOINT_INSTALLS=all).
//
// npm's cache is warm, as on any machine that has installed these packages once: the registry's
// tarballs are in it from this clone's `npm ci`, and the one native addon (better-sqlite3) is put
// where its installer looks for a downloaded build before compiling one, made from this clone's
// build of the same pinned version. Compiling it in every project would cost a minute each and test
// the C++ toolchain, not killpoint.

import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  // A workflow of one's own with no model: the Workflow SDK alone.
  'vercel-no-model': ['workflow', '@workflow/core', '@workflow/world-local', '@workflow/builders', '@workflow/utils', '@opentelemetry/api'],
};

/** The Workflow SDK as workflow 4.2.4 brings it (a published sign-up pins it): the workflow with no model runs on it. */
const OLDER_WORKFLOW_SDK: Record<string, string> = { workflow: '4.2.4', '@workflow/core': '4.2.4', '@workflow/builders': '4.0.5', '@workflow/world-local': '4.1.1', '@workflow/utils': '4.1.1' };

/** Versions older than ours that a project here installs, and the peer range must admit (its lower bound). */
const OLDER_TESTED: Record<string, string> = { zod: '3.25.76', ai: '6.0.52', '@ai-sdk/provider': '3.0.5', ...OLDER_WORKFLOW_SDK };

/** Which projects are installed: the sample (killpoint alone, the LangGraph example's), the engines' or all. */
const WHICH = process.env.KILLPOINT_INSTALLS ?? 'sample';
if (!['sample', 'engines', 'all'].includes(WHICH)) throw new Error(`KILLPOINT_INSTALLS: expected sample, engines or all, got "${WHICH}"`);
const SAMPLE = new Set(['alone', 'langgraph']);
const installsProject = (project: string): boolean => WHICH === 'all' || SAMPLE.has(project) === (WHICH === 'sample');

/** The user's LangGraph project is the example's, whose package.json names LangGraph 1.7.3 and @langchain/core 1.4.0. */
const LANGGRAPH_EXAMPLE = join(PROJECT_ROOT, 'examples', 'support-agent-langgraph');
/** A LangGraph graph on zod 3.25.76: its state LangGraph's MessagesZodState extended with the project's zod, its tool's schema a zod-3 object. */
const ZOD3_PROJECT = join(PROJECT_ROOT, 'test', 'fixtures', 'zod3-project');
/** The AI SDK example, on ai 6.0.52 (ours is 6.0.325): it brings @ai-sdk/provider 3.0.5. */
const AI_SDK_EXAMPLE = join(PROJECT_ROOT, 'examples', 'ai-sdk-agent');
const VERCEL_MODULES = join(PROJECT_ROOT, 'test', 'fixtures', 'vercel-modules');

let work: string;
let tarball: string;
const installs = new Map<string, Promise<Ran>>();

/** An empty project with killpoint from the tarball and `packages` at our tested versions (or `versions`), installed with a plain `npm install`. */
function installProject(name: string, packages: readonly string[], versions: Record<string, string> = {}): Promise<Ran> {
  const dir = join(work, name);
  mkdirSync(dir);
  copyFileSync(tarball, join(dir, 'killpoint.tgz'));
  const devDependencies: Record<string, string> = { killpoint: 'file:killpoint.tgz' };
  for (const p of packages) devDependencies[p] = versions[p] ?? OURS.devDependencies[p]!;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `user-project-${name}`, private: true, type: 'module', devDependencies }, null, 2));
  return run('npm', ['install'], dir);
}

/** A project copied as a user has it (`from`, into `name`), with the tarball where its package.json expects it; `devDependencies` changed before it installs. */
function installCopied(name: string, from: string, devDependencies: Record<string, string> = {}): Promise<Ran> {
  const dir = join(work, name);
  cpSync(from, dir, { recursive: true, filter: (src) => !/node_modules|killpoint-corpus|\.tgz$/.test(src) });
  copyFileSync(tarball, join(dir, 'killpoint.tgz'));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  Object.assign(manifest.devDependencies, devDependencies);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  return run('npm', ['install'], dir);
}

/** The Workflow SDK alone, as workflow 4.2.4 brings it (ours is 4.8.9), and a keyed workflow of one's own that calls no model. */
function installVercelNoModel(): Promise<Ran> {
  const ran = installProject('vercel-no-model', ENGINE_PACKAGES['vercel-no-model']!, OLDER_WORKFLOW_SDK);
  mkdirSync(join(work, 'vercel-no-model', 'workflows'));
  copyFileSync(join(VERCEL_MODULES, 'workflows', 'keyed.ts'), join(work, 'vercel-no-model', 'workflows', 'keyed.ts'));
  for (const file of ['ledger.ts', 'input.json']) copyFileSync(join(VERCEL_MODULES, file), join(work, 'vercel-no-model', file));
  return ran;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'killpoint-install-'));
  tarball = packTarball(work);
  warmNativeAddon();
  // The installs run side by side: each waits mostly on npm's cache and the registry's metadata.
  for (const [project, packages] of Object.entries(ENGINE_PACKAGES)) if (project !== 'vercel-no-model' && installsProject(project)) installs.set(project, installProject(project, packages));
  if (installsProject('langgraph')) installs.set('langgraph', installCopied('langgraph', LANGGRAPH_EXAMPLE));
  if (installsProject('langgraph-zod3')) installs.set('langgraph-zod3', installCopied('langgraph-zod3', ZOD3_PROJECT));
  if (installsProject('ai-sdk-6')) installs.set('ai-sdk-6', installCopied('ai-sdk-6', AI_SDK_EXAMPLE, { ai: OLDER_TESTED.ai! }));
  if (installsProject('vercel-no-model')) installs.set('vercel-no-model', installVercelNoModel());
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

/** The version of `pkg` the project at `dir` installed at its top. */
function versionIn(dir: string, pkg: string): string {
  return (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

// Each installs with no flag (before, killpoint's peers refused zod 3 and ai 6.0.52: ERESOLVE), keeps
// its own version, and is checked on its own packages.
describe("a user's own project on versions older than ours, installed with a plain npm install (npm run installs)", () => {
  test.runIf(installsProject('langgraph-zod3'))('a LangGraph graph on zod 3: its zod stays 3.25.76, and the graph checks without error', async () => {
    const dir = await installed('langgraph-zod3');
    expect(versionIn(dir, 'zod')).toBe(OLDER_TESTED.zod);
    const check = await npx(dir, 'check', '--langgraph', 'src/graph.ts', '--input', 'input.json');
    expect(check.status, check.output).toBe(0);
    expect(check.output).toMatch(/every promised check holds/);
  }, 300_000);

  test.runIf(installsProject('ai-sdk-6'))('the AI SDK example on ai 6.0.52: it keeps its ai, and without keys the refund is done twice at the kill in the gap', async () => {
    const dir = await installed('ai-sdk-6');
    expect(versionIn(dir, 'ai')).toBe(OLDER_TESTED.ai);
    expect(versionIn(dir, '@ai-sdk/provider')).toBe(OLDER_TESTED['@ai-sdk/provider']);
    const vitest = await run('npx', ['vitest', 'run', '-t', 'without keys'], dir);
    expect(vitest.status, vitest.output).toBe(0);
    expect(vitest.output).toMatch(/1 passed/);
  }, 300_000);

  test.runIf(installsProject('vercel-no-model'))('a Vercel workflow with no model beside the Workflow SDK 4.2.4 alone: neither @workflow/ai nor ai is asked for', async () => {
    const dir = await installed('vercel-no-model');
    expect(JSON.parse(readFileSync(join(dir, 'node_modules', 'workflow', 'package.json'), 'utf8')).version).toBe('4.2.4');
    expect(existsSync(join(dir, 'node_modules', '@workflow', 'ai'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'ai'))).toBe(false);
    const check = await npx(dir, 'check', '--vercel-workflow', 'workflows/keyed.ts', '--input', 'input.json');
    expect(check.status, check.output).toBe(0);
    expect(check.output).toMatch(/every promised check holds/);
  }, 300_000);
});

describe('the versions installed', () => {
  test.runIf(WHICH !== 'engines')('each engine package a project installs is an optional peer of killpoint, at a version its range admits', () => {
    for (const p of [...Object.values(ENGINE_PACKAGES).flat(), ...Object.keys(OLDER_TESTED)]) {
      expect(OURS.peerDependencies[p], p).toBeDefined();
      // From the oldest version tested here (ours, or an older one a project above installs); a
      // later major only where a test installs it (ai 7: ai-sdk7-project.test.ts; zod 4: ours).
      const from = (OLDER_TESTED[p] ?? OURS.devDependencies[p]!).replaceAll('.', '\\.');
      expect(OURS.peerDependencies[p], p).toMatch(new RegExp(`^\\^${from}( \\|\\| \\^\\d+\\.\\d+\\.\\d+)?$`));
    }
  });
});
