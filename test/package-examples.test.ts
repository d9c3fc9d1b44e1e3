// killpoint as its users get it: packed with `npm pack`, installed from the tarball into a project
// of their own, used from their vitest suite. Each example under examples/ is copied to a temp
// folder with the tarball, installed and tested there, so a broken export, a file missing from the
// tarball or a dependency missing from package.json fails here, as it would for a user.
//
// Install scripts are skipped and the one native addon (better-sqlite3, the same pinned version)
// is copied from this checkout's build: compiling it again for every example would cost minutes
// and test the C++ toolchain, not killpoint.
//
// By default each example runs the tests named in SUBSETS below (vitest's -t) and the others their
// whole suite; `npm run examples` (KILLPOINT_EXAMPLES=all) runs every example's whole suite.

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

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
  // Its keyed sweep is 17 s; "without keys" runs checkDbos from the package on embedded PGlite over
  // every kill point and finds the minimal one.
  'support-agent-dbos': 'without keys',
  // Its keyed sweep repeats what its "without keys" check runs (checkAgent over every kill point
  // through the installed killpoint and killpoint/agent, then shrunk to the minimal one).
  'journal-agent': 'without keys',
  // langgraph-scenario and support-agent-langgraph take seconds: whole suite, including
  // killpointTests from the installed killpoint/vitest run for real.
};
const ALL = process.env.KILLPOINT_EXAMPLES === 'all';
let work: string;
let tarball: string;

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
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: PROJECT_ROOT, env: cleanEnv(), encoding: 'utf8' }).trim().split('\n').at(-1)!;
  tarball = join(work, name);
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

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
});

describe('the table of example subsets', () => {
  test('names only examples that exist', () => {
    expect(Object.keys(SUBSETS).filter((e) => !existsSync(join(EXAMPLES, e)))).toEqual([]);
  });
});

describe.each(readdirSync(EXAMPLES).sort())('examples/%s, installed from the tarball', (example) => {
  const pattern = ALL ? undefined : SUBSETS[example];
  const title = pattern === undefined ? 'its whole vitest suite passes' : `its own tests named /${pattern}/ pass (KILLPOINT_EXAMPLES=all runs the whole suite)`;
  test(title, () => {
    const dir = join(work, example);
    cpSync(join(EXAMPLES, example), dir, { recursive: true, filter: (src) => !/node_modules|killpoint-corpus|\.tgz$/.test(src) });
    cpSync(tarball, join(dir, 'killpoint.tgz'));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], dir);
    const addon = join(dir, 'node_modules', NATIVE_ADDON);
    expect(existsSync(join(dir, 'node_modules', 'better-sqlite3')), 'better-sqlite3 comes with killpoint').toBe(true);
    mkdirSync(join(addon, '..'), { recursive: true });
    cpSync(join(PROJECT_ROOT, 'node_modules', NATIVE_ADDON), addon);
    const filter = pattern === undefined ? [] : ['-t', pattern];
    const vitest = spawnSync('npx', ['vitest', 'run', ...filter, '--reporter=json', '--outputFile=vitest-report.json'], { cwd: dir, env: cleanEnv(), encoding: 'utf8' });
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
