// killpoint as its users get it: packed with `npm pack`, installed from the tarball, used from a
// vitest suite. Each example under examples/ is copied to a temp folder and tested there, so a
// broken export or a file missing from the tarball fails here, as it would for a user.
//
// The examples share one install, made from the tarball and every example's own devDependencies
// (the same pinned versions; a clash fails): five installs cost half a minute more and would only
// test npm again. What a separate install per example would catch, a package the compiled code
// imports without declaring it, is checked on the tarball's files directly, for every import.
//
// Install scripts are skipped and the one native addon (better-sqlite3, the same pinned version)
// is copied from this checkout's build: compiling it again would cost minutes and test the C++
// toolchain, not killpoint.
//
// `npm test` runs the sample (test/suite.ts): the tarball's checks and one example, SAMPLE_EXAMPLE
// below, its install made of its own packages alone; `npm run engines` (KILLPOINT_SUITE=all) and
// CI's legs install and run every example. Each example runs the tests named in SUBSETS below
// (vitest's -t) and the others their whole suite; `npm run examples` (KILLPOINT_EXAMPLES=all) runs
// every example's whole suite.

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { packTarball } from './user-project.js';
import { AI_MIDDLEWARE_PACKAGES } from '../src/harness/engines/restate/packages.js';
import { fullSuite } from './suite.js';

const EXAMPLES = join(PROJECT_ROOT, 'examples');
const NATIVE_ADDON = join('better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

// The tests an example runs by default: a pattern for vitest's -t, or none for its whole suite.
// Whatever runs imports the installed package's entries (killpoint and killpoint/vitest at the top
// of each test file, so killpointTests still declares its tests, then skipped) and drives the
// example's agent through them; the full sweeps add no proof that the tarball works, only minutes.
const SUBSETS: Record<string, string> = {
  // Its keyed sweep is 36 s; "without keys" replays one schedule with checkAgentSchedule, which runs
  // the agent on the installed killpoint/agent and killpoint/ai-sdk, and finds the refund done twice.
  'ai-sdk-agent': 'without keys',
  // Its sweeps (keyed, and "without keys" over every kill point) are a process per life, half a
  // minute; "one kill replayed" runs checkDbosSchedule from the package on embedded PGlite and finds
  // the refund done twice. The search over every kill point of a DBOS module of one's own is
  // test/dbos-module.test.ts's.
  'support-agent-dbos': 'one kill replayed',
  // Its sweeps (keyed, and "without keys" over every kill point, shrunk) are a process per life
  // with a TypeScript loader, half a minute; "one kill replayed" runs checkAgentSchedule through the
  // installed killpoint and killpoint/agent and finds the refund done twice. A search shrunk to its
  // minimal kill point through the installed package runs in support-agent-langgraph's whole suite.
  'journal-agent': 'one kill replayed',
  // Its sweeps across the wait (keyed, two questions, the email in the node that asks) are half a
  // minute in all; "without keys" runs checkLangGraph from the package with --resume's file and
  // finds the refund done twice after the approval. The rest is test/langgraph-waits.test.ts's.
  'refund-approval-langgraph': 'without keys',
  // Its sweeps are a process per life, each loading Mastra (seconds); "one kill replayed" runs
  // killPointsOf and checkSchedule from the package and finds the refund done twice.
  'support-agent-mastra': 'one kill replayed',
  // Its sweeps (nine modules through the command line, three vitest lines) are a quarter of an
  // hour, the Vercel workflows on the AI SDK two to three minutes each (a process per life); the
  // recording against its stand-ins (nine runs never killed, about a minute), the cassettes' check
  // for credentials and "one kill replayed" run the installed package's interception in a child of
  // each life, offline, and find the refund done twice at the shop's commit. The rest is test/http-traffic.test.ts's.
  'support-agent-http': 'cassettes hold|one kill replayed',
  // langgraph-scenario and support-agent-langgraph take seconds: whole suite, including
  // killpointTests from the installed killpoint/vitest run for real.
};
const ALL = process.env.KILLPOINT_EXAMPLES === 'all';
// The example npm test installs and runs: its whole suite takes seconds and runs killpointTests from
// the installed killpoint/vitest for real, so a tarball that breaks the package fails it.
const SAMPLE_EXAMPLE = 'langgraph-scenario';
const runsExample = (example: string): boolean => fullSuite || ALL || example === SAMPLE_EXAMPLE;
let work: string;
let tarball: string;

interface PackageJson {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

/** Every example's dependencies in one list, killpoint from the tarball; one version per package. */
function sharedDependencies(examples: string[], tarballName: string): Record<string, string> {
  const all: Record<string, string> = {};
  const from: Record<string, string> = {};
  for (const example of examples) {
    const pkg = readPackageJson(join(EXAMPLES, example));
    for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      if (name === 'killpoint') continue;
      if (all[name] !== undefined && all[name] !== version) throw new Error(`examples/${from[name]} and examples/${example} ask for ${name} ${all[name]} and ${version}: one version is shared by every example`);
      all[name] = version;
      from[name] = example;
    }
  }
  return { ...all, killpoint: `file:${tarballName}` };
}

/**
 * The packages a module names in its imports: \`from 'x'\`, \`import('x')\`, \`import 'x'\`; relative
 * paths left out. A specifier is one word on one line: a string that ends in "from " (a message)
 * is no import.
 */
function importedPackages(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"\s]+)['"]/gm)].map((m) => m[1]!);
  return specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('/')).map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!));
}

/** "file: package" for each import of a package that is neither node's, the package itself, nor declared in its package.json. */
function undeclaredImports(files: { path: string; source: string }[], pkg: PackageJson): string[] {
  const declared = new Set([pkg.name, ...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
  const builtin = new Set(builtinModules);
  return files.flatMap(({ path, source }) => importedPackages(source).filter((p) => !p.startsWith('node:') && !builtin.has(p) && !declared.has(p)).map((p) => `${path}: ${p}`));
}

/** The tarball's JavaScript files, unpacked. */
function packedModules(): { path: string; source: string }[] {
  const dir = join(work, 'unpacked');
  mkdirSync(dir);
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
  const files = (readdirSync(join(dir, 'package'), { recursive: true }) as string[]).filter((f) => /\.(m?js)$/.test(f));
  return files.map((f) => ({ path: f, source: readFileSync(join(dir, 'package', f), 'utf8') }));
}

/** The environment of a child that is a project of its own: none of this vitest run's settings. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS' && k !== 'TEST' && !k.startsWith('KILLPOINT_')));
}

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, env: cleanEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'killpoint-examples-'));
  // npm pack runs prepack (the build) and prints the tarball's name on its last line.
  tarball = packTarball(work);
  // An example for a newer Node than this one is skipped below: its packages are not installed.
  // So is an example npm test leaves to npm run engines.
  const devDependencies = sharedDependencies(readdirSync(EXAMPLES).sort().filter((e) => newerNodeAskedBy(e) === null && runsExample(e)), basename(tarball));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'killpoint-examples', private: true, devDependencies }, null, 2));
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], work);
  const addon = join(work, 'node_modules', NATIVE_ADDON);
  mkdirSync(join(addon, '..'), { recursive: true });
  cpSync(join(PROJECT_ROOT, 'node_modules', NATIVE_ADDON), addon);
}, 240_000);

// The shared install is large (every example's engines, Vercel's workflow packages among them): on a
// machine busy with other legs its removal took over a minute, so it gets its own limit, off the event loop.
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
}, 300_000);

describe('the packed tarball', () => {
  test('holds the compiled entry points with their types, the command and the bundled scenarios, and no TypeScript sources', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { types: string; import: string }> };
    for (const [entry, target] of Object.entries(pkg.exports)) {
      const paths = typeof target === 'string' ? [target] : [target.types, target.import];
      for (const p of paths) expect(files, `${entry} -> ${p}`).toContain(`package/${p.replace(/^\.\//, '')}`);
    }
    expect(files).toContain('package/bin/killpoint.mjs');
    expect(files).toContain('package/scenarios/lantern/T01-dana-torn-pad.json');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  test('imports no package that its package.json does not declare (a dependency, or an optional peer for an engine)', () => {
    const modules = packedModules();
    expect(modules.length).toBeGreaterThan(50);
    // Restate's AI SDK middleware is loaded only by the bundled ai-middleware systems, which refuse
    // with exit 2 naming it when it is missing: not a peer, since its 0.2.1 asks for ai ^5 and
    // killpoint's ai is ^6 (npm refused to install killpoint at all). Only it is let through.
    const refusedWhenMissing = (line: string) => line.endsWith(': @restatedev/vercel-ai-middleware') && AI_MIDDLEWARE_PACKAGES.includes('@restatedev/vercel-ai-middleware');
    expect(undeclaredImports(modules, readPackageJson(PROJECT_ROOT)).filter((line) => !refusedWhenMissing(line))).toEqual([]);
  });
});

describe('the check for undeclared imports', () => {
  test('names the file and the package of every import its package.json does not declare, in each form of import', () => {
    const source = ["import { a } from 'declared/sub';", "import x from 'left-out';", "const m = await import('@scope/left-out/deep');", "import 'side-effect-only';", "import { readFileSync } from 'node:fs';", "import { join } from 'path';", "export { b } from './local.js';", "const said = 'no answer from ';", "const next = 'x';"].join('\n');
    expect(undeclaredImports([{ path: 'dist/x.js', source }], { name: 'self', dependencies: { declared: '1' } })).toEqual(['dist/x.js: left-out', 'dist/x.js: @scope/left-out', 'dist/x.js: side-effect-only']);
  });
});

describe('the table of example subsets', () => {
  test('names only examples that exist', () => {
    expect(Object.keys(SUBSETS).filter((e) => !existsSync(join(EXAMPLES, e)))).toEqual([]);
    expect(existsSync(join(EXAMPLES, SAMPLE_EXAMPLE))).toBe(true);
  });
});

/**
 * The Node an example asks for in its package.json (`engines.node`, written `>=MAJOR.MINOR`), when
 * this Node is older; null when it runs here. An example for a newer Node runs in CI's Node legs.
 */
function newerNodeAskedBy(example: string): string | null {
  const asked = (readPackageJson(join(EXAMPLES, example)) as { engines?: { node?: string } }).engines?.node;
  const m = asked?.match(/^>=(\d+)\.(\d+)$/);
  if (asked !== undefined && m === null) throw new Error(`examples/${example}/package.json: engines.node: expected >=MAJOR.MINOR, got ${asked}`);
  if (m === null || m === undefined) return null;
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const older = major < Number(m[1]) || (major === Number(m[1]) && minor < Number(m[2]));
  return older ? asked! : null;
}

describe.each(readdirSync(EXAMPLES).sort())('examples/%s, installed from the tarball', (example) => {
  const pattern = ALL ? undefined : SUBSETS[example];
  const title = pattern === undefined ? 'its whole vitest suite passes' : `its own tests named /${pattern}/ pass (KILLPOINT_EXAMPLES=all runs the whole suite)`;
  const newer = newerNodeAskedBy(example);
  const why = newer !== null ? `: skipped, it asks for Node ${newer} and this is ${process.versions.node}` : runsExample(example) ? '' : ' (npm run engines)';
  test.skipIf(newer !== null || !runsExample(example))(`${title}${why}`, () => {
    const dir = join(work, example);
    cpSync(join(EXAMPLES, example), dir, { recursive: true, filter: (src) => !/node_modules|killpoint-corpus|\.tgz$/.test(src) });
    // The example's modules resolve from the shared install in the folder above it.
    const filter = pattern === undefined ? [] : ['-t', pattern];
    const vitest = spawnSync(process.execPath, [join(work, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...filter, '--reporter=json', '--outputFile=vitest-report.json'], { cwd: dir, env: cleanEnv(), encoding: 'utf8' });
    const reportFile = join(dir, 'vitest-report.json');
    if (!existsSync(reportFile)) throw new Error(`vitest wrote no report in ${dir} (exit ${vitest.status ?? vitest.signal}):\n${vitest.stdout}\n${vitest.stderr}`);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; testResults: { message?: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[] };
    // The example's own failures, as its vitest printed them, so that a broken package reads at once.
    const failures = report.testResults.flatMap((f) => [...(f.message ? [f.message] : []), ...f.assertionResults.flatMap((a) => a.failureMessages.map((m) => `${a.fullName}: ${m.split('\n').slice(0, 6).join('\n')}`))]);
    expect(failures).toEqual([]);
    expect(report.numFailedTests).toBe(0);
    expect(vitest.status).toBe(0);
    if (pattern === undefined) {
      expect(report.numPendingTests).toBe(0);
      expect(report.numPassedTests).toBeGreaterThanOrEqual(2);
    } else {
      // A filter that matches nothing passes nothing: that fails here, as would a test that ran
      // without matching (the filter not applied).
      const passed = report.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'passed').map((a) => a.fullName));
      expect(passed.length).toBeGreaterThanOrEqual(1);
      expect(passed.filter((name) => !new RegExp(pattern).test(name))).toEqual([]);
    }
  }, 600_000);
});
