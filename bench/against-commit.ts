// The simulated tier's speed against a commit, both measured in this one run. Figures from
// different days do not compare: these machines drift 2x from one day to the next, so a figure
// kept from before a change says nothing about the change. This script measures the commit before
// the redesign (or any --base REV) and the current tree side by side, alternating, and prints for
// each of bench/bench.ts's two headline figures the old value, the new one, new/old, and whether the
// new one is within 10% of the old:
//   - kill-and-resume runs per second (simulate + judge of every single kill of every bundled
//     scenario under every strategy); within 10% means new >= 0.9 x old;
//   - every single kill by equivalence against each from scratch (how many times faster the
//     reduced enumeration is than the unreduced one); within 10% means 0.9 <= new/old <= 1.1, since
//     a speed-up that grows may as well be the run from scratch getting slower.
// Each tree is measured with its own code: REV is checked out as a detached git worktree in a fresh
// temporary folder (this checkout's node_modules linked into it) and removed at the end, on an
// error and on Ctrl-C too; a run killed outright cannot clean up, so each run first removes what
// a run no longer alive left behind. Each round runs old then new in a child process with the
// tree's own node_modules/.bin/tsx; each tree's figure is the best of its rounds (the highest runs
// per second, the highest speed-up), the noise of a busy machine being all on the slow side.
//
// How: by default a short measuring script, written into the temporary folder, imports each
// tree's own modules (src/search/..., src/engines/... before the redesign; src/harness/search/...,
// src/harness/engines/... after: it takes whichever exists) and measures the two figures exactly as
// bench/bench.ts does (the same untimed warm-up pass, the same 0.5 s of passes as --quick, the same
// enumerations), printing the speed-up to three decimals instead of one. Running each tree's whole
// bench/bench.ts --quick (--full-bench) gives the same two figures but took 142 s a run on a busy
// two-core machine, most of it the parallel-call orders and the three-kill schedules, which neither
// figure needs; the short script took 20 to 35 s a run on the same busy machine, about 5 s on a
// quieter one. Runs of one tree still vary by 20% or more on a busy machine: give it more --rounds.
// The working tree is read as it is when each of its runs starts: edits made meanwhile are measured
// from the next run on.
//
// Run: npx tsx bench/against-commit.ts [--base REV] [--head REV] [--rounds N] [--full-bench]
//   --base REV     the old side (default 7e2e3b2, the commit before the redesign)
//   --head REV     the new side as a commit, checked out like the base (default: this working tree)
//   --rounds N     rounds of old then new (default 3)
//   --full-bench   run each tree's bench/bench.ts --quick instead of the short measuring script
// Exit 0 whether or not the figures are within 10% (a bench reports, it does not fail); exit 2 when
// the comparison cannot be set up (no git, no such revision, a tree whose bench does not run or
// does not print the figures).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const DEFAULT_BASE = '7e2e3b2';
const DEFAULT_ROUNDS = 3;
const WITHIN = 0.1;

/** The comparison cannot be made: said in one line, exit 2. */
class SetUpError extends Error {}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Tree {
  /** 'old' or 'new'. */
  side: string;
  /** What it is, for the output: a commit, or the working tree. */
  label: string;
  dir: string;
}

interface Figures {
  runsPerS: number;
  speedUp: number;
  /** Single kills each enumeration covered: the same work on both sides, or the figures do not compare. */
  singleKills: number | null;
}

// --- the short measuring script, run in each tree -------------------------------------------------

/**
 * Imports the tree named by its first argument and prints the two figures in bench/bench.ts's own
 * lines, measured as bench.ts measures them (runsPerSecond and enumerate are bench.ts's, kept to its
 * letter; a tree from before sessions runs each case with one model, as its bench did). Exit 3
 * when a module or an export it needs is missing.
 */
const MEASURE_SCRIPT = String.raw`// Written and removed by bench/against-commit.ts: bench/bench.ts's two headline figures, measured
// as bench.ts measures them, with the modules of the tree whose root is the first argument.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.argv[2];
const quickS = 0.5;

function fail(message) {
  console.error(message);
  process.exit(3);
}

async function load(candidates, names) {
  const rel = candidates.find((c) => existsSync(join(root, c)));
  if (rel === undefined) fail('none of ' + candidates.join(', ') + ' in ' + root);
  const m = await import(pathToFileURL(join(root, rel)).href);
  for (const name of names) if (!(name in m)) fail(rel + ' exports no ' + name);
  return m;
}

/** The engines' and the search's modules: under src/harness since the redesign, under src before. */
const harness = (rel) => ['src/harness/' + rel, 'src/' + rel];

const { explore } = await load(harness('search/explore.ts'), ['explore']);
const { simulate } = await load(harness('engines/scripted/simulate.ts'), ['simulate']);
const { STRATEGY_NAMES } = await load(harness('engines/scripted/strategies.ts'), ['STRATEGY_NAMES']);
const { judge } = await load(harness('check/verdict.ts'), ['judge']);
const { scripted } = await load(harness('engines/scripted/engine.ts'), ['scripted']);
const { lanternScenarios } = await load(['src/model/load.ts'], ['lanternScenarios']);
const { ScriptedModel } = await load(['src/model/scripted-model.ts'], ['ScriptedModel']);

/** The measuring loops are synchronous, as the tiers measured are: a promise would be timed unfinished. */
function synchronous(value, what) {
  if (value !== null && typeof value === 'object' && typeof value.then === 'function') fail(what + ' returned a promise: this script times synchronous calls only (try --full-bench)');
  return value;
}

function seconds(f) {
  const t0 = performance.now();
  f();
  return (performance.now() - t0) / 1000;
}

function fmt(n, digits = 0) {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/**
 * A case's runs: in one session opened once (a tree whose systems open sessions, as bench.ts runs
 * them), else simulate with one model per case (a tree from before sessions).
 */
function runnerOf(scenario, name) {
  const system = scripted(name);
  if (typeof system.open === 'function') {
    const session = system.open(scenario);
    return { run: (schedule) => session.run(schedule), close: () => session.close() };
  }
  const model = new ScriptedModel(scenario);
  return { run: (schedule) => simulate(scenario, name, schedule, model), close: () => {} };
}

function runsPerSecond(scenarios, forS) {
  const cases = scenarios.flatMap((scenario) => STRATEGY_NAMES.map((name) => {
    const runner = runnerOf(scenario, name);
    const baseline = synchronous(runner.run({ kills: [], interleaving: [] }), 'a run');
    return { scenario, runner, baseline, events: baseline.lives[0].events.length };
  }));
  const pass = () => {
    let passRuns = 0;
    for (const c of cases) {
      for (let k = -1; k < c.events; k++) {
        judge(c.scenario, c.runner.run({ kills: [k], interleaving: [] }), c.baseline);
        passRuns++;
      }
    }
    return passRuns;
  };
  pass();
  let runs = 0;
  let s = 0;
  while (s < forS) s += seconds(() => (runs += pass()));
  for (const c of cases) c.runner.close();
  return { runs, s };
}

function enumerate(scenarios, kills, interleavingBound, reduce) {
  let schedules = 0;
  let lives = 0;
  const s = seconds(() => {
    for (const scenario of scenarios) {
      for (const name of STRATEGY_NAMES) {
        const e = synchronous(explore(scenario, scripted(name), { kills, interleavingBound, seed: 1, reduce }), 'explore');
        schedules += e.schedulesExplored;
        lives += e.reduction?.livesRun ?? e.schedulesExplored + e.interleavings.explored;
      }
    }
  });
  return { schedules, s, lives };
}

function rates(label, e) {
  return label + ': ' + fmt(e.schedules) + ' schedules in ' + fmt(e.s, 3) + ' s: ' + fmt(e.schedules / e.s) + ' schedules/s covered, ' + fmt(e.lives) + ' lives run (' + fmt(e.lives / e.s) + '/s)';
}

const scenarios = lanternScenarios();
console.log('killpoint against-commit measure: ' + scenarios.length + ' bundled scenarios x ' + STRATEGY_NAMES.length + ' strategies, in-memory stores, one process, ' + root);
const rate = runsPerSecond(scenarios, quickS);
console.log('kill-and-resume runs per second: ' + fmt(rate.runs / rate.s) + ' (' + fmt(rate.runs) + ' runs in ' + fmt(rate.s, 2) + ' s)');
const singleReduced = enumerate(scenarios, 1, 1, true);
const singleFull = enumerate(scenarios, 1, 1, false);
console.log(rates('every single kill, by equivalence', singleReduced));
console.log(rates('every single kill, each from scratch', singleFull));
console.log('  single kills: ' + fmt(singleFull.s / singleReduced.s, 3) + 'x faster by equivalence; ' + fmt(singleReduced.s, 3) + ' s against ' + fmt(singleFull.s, 3) + ' s');
`;

// --- git and the worktrees ------------------------------------------------------------------------

function git(args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new SetUpError('git is not installed (no git on the PATH)');
    throw new SetUpError(`git ${args.join(' ')}: ${r.error.message}`);
  }
  return { ok: r.status === 0, out: r.stdout.trim(), err: r.stderr.trim() };
}

/** The full hash of REV, or a one-line set-up error. */
function commitOf(rev: string): string {
  if (!git(['rev-parse', '--git-dir']).ok) throw new SetUpError(`${root} is not a git checkout`);
  const r = git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  if (!r.ok || r.out === '') throw new SetUpError(`revision ${rev} is not a commit of ${root}`);
  return r.out;
}

function describe(commit: string): string {
  const r = git(['log', '-1', '--format=%h %s', commit]);
  const line = r.out.split('\n')[0] ?? commit.slice(0, 7);
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

let tempDir: string | null = null;
const worktrees: string[] = [];
let cleanedUp = false;

/** Removes the worktrees made (each, then git's records of any left), and the temporary folder. */
function cleanUp(): void {
  if (cleanedUp) return;
  cleanedUp = true;
  for (const dir of worktrees) {
    // The link first: the worktree's removal must never reach into this checkout's node_modules.
    const link = join(dir, 'node_modules');
    try {
      if (lstatSync(link).isSymbolicLink()) unlinkSync(link);
    } catch {
      // no link (the worktree was not made, or the link never was)
    }
    spawnSync('git', ['-C', root, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
  }
  if (worktrees.length > 0) spawnSync('git', ['-C', root, 'worktree', 'prune'], { stdio: 'ignore' });
  if (tempDir !== null) rmSync(tempDir, { recursive: true, force: true });
}

const TEMP_PREFIX = 'killpoint-against-';
/** In each run's temporary folder: the id of the process that made it, so a later run can tell it was left behind. */
const OWNER_FILE = 'owner.pid';

function temporaryFolder(): string {
  if (tempDir === null) {
    tempDir = mkdtempSync(join(tmpdir(), TEMP_PREFIX));
    writeFileSync(join(tempDir, OWNER_FILE), String(process.pid));
  }
  return tempDir;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what a run ended outright left behind (SIGKILL, or tsx's own wrapper killing it when a
 * relayed signal is not answered in time): its worktrees of this checkout and its temporary folder,
 * when the process that made them is gone. Folders of runs still going are left alone.
 */
function sweepLeftBehind(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(TEMP_PREFIX));
  } catch {
    return;
  }
  const left: string[] = [];
  for (const name of names) {
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // not one of ours, or still being made
    }
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) left.push(dir);
  }
  if (left.length === 0) return;
  const listed = git(['worktree', 'list', '--porcelain']).out.split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice('worktree '.length));
  for (const dir of left) {
    for (const wt of listed.filter((w) => w.startsWith(`${dir}/`))) {
      try {
        if (lstatSync(join(wt, 'node_modules')).isSymbolicLink()) unlinkSync(join(wt, 'node_modules'));
      } catch {
        // no link
      }
      spawnSync('git', ['-C', root, 'worktree', 'remove', '--force', wt], { stdio: 'ignore' });
    }
    rmSync(dir, { recursive: true, force: true });
    console.log(`against-commit: removed ${dir}, left behind by a run that was killed`);
  }
  spawnSync('git', ['-C', root, 'worktree', 'prune'], { stdio: 'ignore' });
}

/** A detached worktree of the commit, with this checkout's node_modules linked into it. */
function worktreeOf(side: string, commit: string): string {
  const dir = join(temporaryFolder(), side);
  worktrees.push(dir);
  const r = git(['worktree', 'add', '--detach', '--quiet', dir, commit]);
  if (!r.ok) throw new SetUpError(`git worktree add of ${commit.slice(0, 7)} failed: ${r.err.split('\n')[0] ?? ''}`);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

// --- running a tree -------------------------------------------------------------------------------

let running: ChildProcess | null = null;

function stopChild(): void {
  const child = running;
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM'); // its own process group: tsx and the node it starts
  } catch {
    child.kill('SIGTERM');
  }
}

function runChild(tree: Tree, args: string[]): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; s: number }> {
  const tsx = join(tree.dir, 'node_modules', '.bin', 'tsx');
  if (!existsSync(tsx)) throw new SetUpError(`the ${tree.side} tree (${tree.label}) has no node_modules/.bin/tsx`);
  return new Promise((done, fail) => {
    const t0 = performance.now(); // real clock: measuring speed is this script's job
    const child = spawn(tsx, args, { cwd: tree.dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running = child;
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', (e) => { running = null; fail(new SetUpError(`the ${tree.side} tree (${tree.label}): ${tsx} did not start: ${e.message}`)); });
    child.on('close', (code, signal) => {
      running = null;
      done({ code, signal, stdout, stderr, s: (performance.now() - t0) / 1000 }); // real clock: measuring speed is this script's job
    });
  });
}

const NUMBER = String.raw`(\d[\d,]*(?:\.\d+)?)`;
const RUNS_LINE = { re: new RegExp(String.raw`^kill-and-resume runs per second: ${NUMBER} \(`, 'm'), expected: '"kill-and-resume runs per second: N (...)"' };
const SPEED_UP_LINE = { re: new RegExp(String.raw`^  single kills: ${NUMBER}x faster by equivalence`, 'm'), expected: '"  single kills: N.Nx faster by equivalence; ..."' };
const SINGLE_KILLS_LINE = new RegExp(String.raw`^every single kill, by equivalence: ${NUMBER} schedules in`, 'm');

function numberOf(text: string): number {
  return Number(text.replace(/,/g, ''));
}

async function measure(tree: Tree, fullBench: boolean, measureScript: string): Promise<{ figures: Figures; s: number }> {
  const what = fullBench ? 'bench/bench.ts --quick' : 'measuring script';
  const r = await runChild(tree, fullBench ? ['bench/bench.ts', '--quick'] : [measureScript, tree.dir]);
  if (r.code !== 0) {
    const tail = r.stderr.trim().split('\n').slice(-12).join('\n');
    throw new SetUpError(`the ${tree.side} tree's ${what} (${tree.label}) ${r.signal ? `was ended by ${r.signal}` : `exited ${r.code}`}${tail ? `:\n${tail}` : ''}`);
  }
  const figure = (line: { re: RegExp; expected: string }): number => {
    const m = line.re.exec(r.stdout);
    if (!m) throw new SetUpError(`the ${tree.side} tree's ${what} (${tree.label}) printed no line ${line.expected}`);
    return numberOf(m[1]!);
  };
  const singleKills = SINGLE_KILLS_LINE.exec(r.stdout);
  return { figures: { runsPerS: figure(RUNS_LINE), speedUp: figure(SPEED_UP_LINE), singleKills: singleKills ? numberOf(singleKills[1]!) : null }, s: r.s };
}

// --- the comparison -------------------------------------------------------------------------------

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function options(): { base: string; head: string | null; rounds: number; fullBench: boolean } {
  const parse = () => parseArgs({
    options: {
      base: { type: 'string', default: DEFAULT_BASE },
      head: { type: 'string' },
      rounds: { type: 'string', default: String(DEFAULT_ROUNDS) },
      'full-bench': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  }).values;
  let values: ReturnType<typeof parse>;
  try {
    values = parse();
  } catch (e) {
    throw new SetUpError(`${(e as Error).message} (usage: bench/against-commit.ts [--base REV] [--head REV] [--rounds N] [--full-bench])`);
  }
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new SetUpError(`--rounds takes a whole number from 1 up, not ${values.rounds}`);
  return { base: values.base!, head: values.head ?? null, rounds, fullBench: values['full-bench']! };
}

async function main(): Promise<void> {
  const t0 = performance.now(); // real clock: measuring speed is this script's job
  const o = options();
  const baseCommit = commitOf(o.base);
  const headCommit = o.head === null ? null : commitOf(o.head);
  sweepLeftBehind();

  const old: Tree = { side: 'old', label: describe(baseCommit), dir: worktreeOf('old', baseCommit) };
  let current: Tree;
  if (headCommit === null) {
    const head = git(['rev-parse', '--short', 'HEAD']).out;
    const dirty = git(['status', '--porcelain', '--untracked-files=no']).out !== '';
    current = { side: 'new', label: `the working tree, HEAD ${head}${dirty ? ' with uncommitted changes' : ''}`, dir: root };
  } else {
    current = { side: 'new', label: describe(headCommit), dir: worktreeOf('new', headCommit) };
  }
  const measureScript = join(temporaryFolder(), 'measure.mts');
  if (!o.fullBench) writeFileSync(measureScript, MEASURE_SCRIPT);

  console.log(`killpoint against a commit: the simulated tier's speed, old and new measured in this one run`);
  console.log(`  old: ${old.label}`);
  console.log(`  new: ${current.label}`);
  console.log(`  ${o.rounds} round${o.rounds === 1 ? '' : 's'} of old then new, each ${o.fullBench ? "the tree's own bench/bench.ts --quick" : "the two figures measured with the tree's own modules as bench/bench.ts --quick measures them"}; each side's best round taken`);

  const best: Record<string, Figures> = {};
  for (let round = 1; round <= o.rounds; round++) {
    for (const tree of [old, current]) {
      const { figures, s } = await measure(tree, o.fullBench, measureScript);
      console.log(`  round ${round}/${o.rounds} ${tree.side}: ${fmt(figures.runsPerS)} runs/s, single kills ${fmt(figures.speedUp, o.fullBench ? 1 : 3)}x faster by equivalence (${fmt(s, 1)} s)`);
      const b = best[tree.side];
      best[tree.side] = b === undefined ? figures : { runsPerS: Math.max(b.runsPerS, figures.runsPerS), speedUp: Math.max(b.speedUp, figures.speedUp), singleKills: figures.singleKills };
    }
  }

  const o1 = best.old!;
  const n1 = best.new!;
  const runsRatio = n1.runsPerS / o1.runsPerS;
  const runsWithin = runsRatio >= 1 - WITHIN;
  const speedUpRatio = n1.speedUp / o1.speedUp;
  const speedUpWithin = Math.abs(speedUpRatio - 1) <= WITHIN;
  const digits = o.fullBench ? 1 : 3;
  console.log(`best of ${o.rounds} round${o.rounds === 1 ? '' : 's'} each:`);
  console.log(`kill-and-resume runs per second: old ${fmt(o1.runsPerS)}, new ${fmt(n1.runsPerS)}, new/old ${fmt(runsRatio, 3)}, within 10%: ${runsWithin ? 'yes' : 'no'} (new >= 0.9 x old)`);
  console.log(`single kills, by equivalence against each from scratch: old ${fmt(o1.speedUp, digits)}x, new ${fmt(n1.speedUp, digits)}x, new/old ${fmt(speedUpRatio, 3)}, within 10%: ${speedUpWithin ? 'yes' : 'no'} (new/old from 0.9 to 1.1)`);
  if (o1.singleKills !== null && n1.singleKills !== null && o1.singleKills !== n1.singleKills) {
    console.log(`  note: the trees enumerate different numbers of single kills (old ${fmt(o1.singleKills)}, new ${fmt(n1.singleKills)}): not the same work`);
  }
  if (o.fullBench) console.log('  (bench.ts prints the speed-up to one decimal: its new/old carries up to a few % of rounding)');
  console.log(`both within 10%: ${runsWithin && speedUpWithin ? 'yes' : 'no'}; took ${fmt((performance.now() - t0) / 1000, 0)} s`); // real clock: measuring speed is this script's job
}

function onSignal(signal: NodeJS.Signals): void {
  stopChild();
  cleanUp();
  console.error(`against-commit: stopped by ${signal}; worktrees removed`);
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
process.on('exit', () => {
  stopChild();
  cleanUp();
});

try {
  await main();
} catch (e) {
  stopChild();
  cleanUp();
  if (e instanceof SetUpError) {
    console.error(`against-commit: ${e.message}`);
  } else {
    console.error(`against-commit: ${(e as Error).stack ?? String(e)}`);
  }
  process.exitCode = 2;
} finally {
  cleanUp();
}
