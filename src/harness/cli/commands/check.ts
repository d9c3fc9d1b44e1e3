// killpoint check <scenario.json | corpus-entry.json ...> [--engine E] [--strategy S ...] [--kills 1|2]
//                 [--interleavings N] [--seed N] [--schedule k1,k2 [--interleaving p1,p2]] [--json] [--save DIR]
//                 [--tier in-process|process]
// A kill point of --schedule is an event's index or its identity (shop-commit[call_refund]).
// Explores every kill schedule of each scenario under each of the engine's systems (the bundled
// scenarios and the scripted engine's five strategies when none are named) and exits 0 when every
// check each system promises holds, 1 when one fails, 2 on bad input. --schedule replays one exact
// schedule and explains it. A corpus entry replays its case and compares the verdict with the one
// it expects. --save keeps each minimal counterexample as a corpus entry.
//
// killpoint check --langgraph <module> --input <input.json | JSON> [--graph-export NAME] [--effects-export NAME] [--cassette F] [...]
// checks a user's own module on its own input: each engine that checks one declares its option and
// its own flags in its folder (Engine.module, user-module/module-engine.ts), read here from the registry.

import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { LANTERN_DIR, loadScenarioFile, PROJECT_ROOT } from '../../../model/load.js';
import { ScenarioError, type Scenario } from '../../../model/scenario.js';
import { UsageError } from '../../usage-error.js';
import { isCorpusEntry, loadCorpusEntry, prepareCorpusFolder, replayEntry, saveCorpusEntry, type CorpusEntry } from '../../search/corpus.js';
import { caseFails, DEFAULT_EXPLORE_OPTIONS, explorationFails, exploreIn, judgeCasePlan, resolveKillsPlan, type JudgedCase } from '../../search/explore.js';
import { runPlan } from '../../search/plan.js';
import { withSession } from '../../session.js';
import type { KillPointSpec } from '../../check/kill-points.js';
import { decimalInt, killDepth, killPointList, parseShard, shardOf, type Shard } from '../options.js';
import { mustLandEveryKill, mustPickInRange } from '../../search/schedule-bounds.js';
import { startProgress } from '../progress.js';
import { showWaits } from '../../traffic/waiting.js';
import { readerGone, yieldToReader } from '../reader.js';
import { DEFAULT_ENGINE, engineNamed, engineNames, moduleEngines } from '../../registry.js';
import { tierOf, type ModuleEngine, type ModuleEngineOptions, type ModuleFlag, type SystemUnderTest } from '../../engine.js';
import { stripCasesPlan, stripOf, type Strip } from '../../report/check-data.js';
import { checkReportHtml } from '../../report/check-html.js';
import { prepareReportFile, writeReportFile } from '../../report/write.js';
import { keepStdout } from '../own-stdout.js';
import { explorationJson, formatExploration, formatFailure, secondDeliveriesJson, type CaseSource } from '../../report/text.js';
import { differences } from '../../check/verdict-lines.js';
import { COMMON_MODULE_FLAGS, ownModuleSystem } from '../../user-module/module-engine.js';
import { ownTaskOf } from '../../user-module/target.js';

interface CheckArgs {
  files: string[];
  engine: string;
  strategies: string[];
  kills: 1 | 2;
  interleavingBound: number;
  seed: number;
  /** Kill points by index or by identity (see src/harness/check/kill-points.ts). */
  schedule: KillPointSpec[] | null;
  interleaving: number[];
  json: boolean;
  /** Where to keep each failure's minimal case as a corpus entry, when asked. */
  saveDir: string | null;
  /** Where to write the HTML report, when asked. */
  htmlPath: string | null;
  /** Only this shard of the work (scenario x system units, corpus entries first). */
  shard: Shard | null;
  /** Where a real engine's lives run, when asked (--tier): else the engine's default. */
  tier: 'in-process' | 'process' | null;
  /** A user's own module (--langgraph, --dbos, ...: an engine's Engine.module), with --input and its options, checked on its own input. */
  ownModule: { engine: ModuleEngine | null; options: ModuleEngineOptions; flags: string[] } | null;
}

/** Every option of a user's module: each kind's own (some shared by two kinds), then every module's. */
function moduleFlags(): ModuleFlag[] {
  const byFlag = new Map<string, ModuleFlag>();
  for (const { module } of moduleEngines()) for (const f of module.flags) byFlag.set(f.flag, f);
  for (const f of COMMON_MODULE_FLAGS) byFlag.set(f.flag, f);
  return [...byFlag.values()];
}

/** The kinds of module whose own option `flag` is. */
function ownersOf(flag: string): ModuleEngine[] {
  return moduleEngines().map((m) => m.module).filter((m) => m.flags.some((f) => f.flag === flag));
}

/** Options only a module takes, given while no module is: bad input naming them and the modules that take them. */
function moduleOptionsWithoutModule(): string {
  const options = moduleFlags().map((f) => f.flag);
  const modules = moduleEngines().map((m) => `${m.module.cliOption} <module>`);
  return `${options.join(', ')}: only with ${modules.slice(0, -1).join(', ')} or ${modules.at(-1)}`;
}

function intList(value: string | undefined, option: string, min: number): number[] {
  if (value === undefined) throw new UsageError(`${option}: expected a comma-separated list of integers`);
  const list = value.split(',').map(decimalInt);
  if (list.some((n) => !Number.isInteger(n) || n < min)) throw new UsageError(`${option}: expected a comma-separated list of integers >= ${min}, got "${value}"`);
  return list;
}

function oneInt(value: string | undefined, option: string, min: number, max = Infinity): number {
  const n = decimalInt(value);
  const range = max === Infinity ? `>= ${min}` : `from ${min} to ${max}`;
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${option}: expected one integer ${range}, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return n;
}

/** More interleavings than this per scenario and system would run for hours; above it, ask for a sample. */
const MAX_INTERLEAVINGS = 10_000;

export function parseCheckArgs(args: string[]): CheckArgs {
  const parsed: CheckArgs = { files: [], engine: DEFAULT_ENGINE, strategies: [], kills: 1, interleavingBound: DEFAULT_EXPLORE_OPTIONS.interleavingBound, seed: DEFAULT_EXPLORE_OPTIONS.seed, schedule: null, interleaving: [], json: false, saveDir: null, htmlPath: null, shard: null, tier: null, ownModule: null };
  const own = (): NonNullable<CheckArgs['ownModule']> => (parsed.ownModule ??= { engine: null, options: { module: '' }, flags: [] });
  const moduleOf = (engine: ModuleEngine, path: string | undefined) => {
    if (own().engine !== null) throw new UsageError(`${engine.cliOption}: one module at a time (${own().engine!.cliOption} was given)`);
    own().engine = engine;
    own().options.module = word(path, engine.cliOption, `the path of the module that exports ${engine.exports}`);
  };
  const kinds = moduleEngines().map((m) => m.module);
  const flags = moduleFlags();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string | undefined => args[++i];
    const kind = kinds.find((m) => m.cliOption === arg);
    const flag = flags.find((f) => f.flag === arg);
    if (kind !== undefined) {
      moduleOf(kind, value());
      continue;
    }
    if (flag !== undefined) {
      own().options[flag.field] = flag.boolean ? true : word(value(), flag.flag, flag.expected);
      own().flags.push(flag.flag);
      continue;
    }
    switch (arg) {
      case '--engine': {
        const name = value();
        if (name === undefined || engineNamed(name) === undefined) throw new UsageError(`--engine: expected one of ${engineNames().join(', ')}, got ${name === undefined ? 'nothing' : `"${name}"`}`);
        parsed.engine = name;
        break;
      }
      case '--strategy': {
        const name = value();
        if (name === undefined) throw new UsageError('--strategy: expected a name, got nothing');
        parsed.strategies.push(name);
        break;
      }
      case '--kills':
        parsed.kills = killDepth(value(), '--kills');
        break;
      case '--interleavings':
        parsed.interleavingBound = oneInt(value(), '--interleavings', 1, MAX_INTERLEAVINGS);
        break;
      case '--seed':
        parsed.seed = oneInt(value(), '--seed', 0);
        break;
      case '--schedule':
        parsed.schedule = killPointList(value(), '--schedule');
        break;
      case '--interleaving':
        parsed.interleaving = intList(value(), '--interleaving', 0);
        break;
      case '--json':
        parsed.json = true;
        break;
      case '--save': {
        const dir = value();
        if (dir === undefined || dir.trim() === '' || dir.startsWith('-')) throw new UsageError(`--save: expected the folder to keep corpus entries in, got ${dir === undefined ? 'nothing' : `"${dir}"`}`);
        parsed.saveDir = dir;
        break;
      }
      case '--html': {
        const path = value();
        if (path === undefined || path.trim() === '' || path.startsWith('-')) throw new UsageError(`--html: expected the file to write the report to, got ${path === undefined ? 'nothing' : `"${path}"`}`);
        parsed.htmlPath = path;
        break;
      }
      case '--shard':
        parsed.shard = parseShard(value(), '--shard');
        break;
      case '--tier': {
        const tier = value();
        if (tier !== 'in-process' && tier !== 'process') throw new UsageError(`--tier: expected in-process or process, got ${tier === undefined ? 'nothing' : `"${tier}"`}`);
        parsed.tier = tier;
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option "${arg}" (options: --engine, --strategy, --kills, --interleavings, --seed, --schedule, --interleaving, --json, --save, --html, --shard, --tier, ${[...kinds.map((m) => m.cliOption), ...flags.map((f) => f.flag)].join(', ')})`);
        parsed.files.push(arg);
    }
  }
  if (parsed.schedule === null && parsed.interleaving.length > 0) throw new UsageError('--interleaving: only with --schedule');
  const mine = parsed.ownModule;
  if (mine !== null) {
    if (mine.engine === null) throw new UsageError(moduleOptionsWithoutModule());
    const option = mine.engine.cliOption;
    if (parsed.files.length > 0 || parsed.strategies.length > 0 || parsed.engine !== DEFAULT_ENGINE) throw new UsageError(`${option}: checks your own module on its own input; leave out scenario files, --engine and --strategy`);
    if (mine.options.inputFile === undefined) throw new UsageError(`${option}: expected --input <file>, a JSON file with the module's input`);
    for (const flag of mine.flags) {
      const owners = ownersOf(flag);
      if (owners.length > 0 && !owners.includes(mine.engine)) throw new UsageError(`${flag}: only with ${owners.map((m) => m.cliOption).join(' or ')}`);
    }
  }
  if (parsed.schedule !== null && parsed.htmlPath !== null) throw new UsageError('--html: draws every kill point of an exploration; leave out --schedule');
  if (parsed.schedule !== null && parsed.shard !== null) throw new UsageError('--shard: splits an exploration among machines; leave out --schedule');
  const engine = engineNamed(parsed.engine)!;
  if (parsed.tier !== null && mine === null && !(engine.tiers ?? []).includes(parsed.tier)) {
    const both = engineNames().filter((n) => (engineNamed(n)!.tiers ?? []).length > 1);
    throw new UsageError(`--tier ${parsed.tier}: the ${engine.name} engine ${engine.tiers === undefined ? 'runs its lives one way only' : `runs its lives ${engine.tiers.join(' or ')}`}; --tier chooses for ${both.join(', ')}`);
  }
  for (const name of parsed.strategies) {
    if (engine.system(name) === undefined) throw new UsageError(`--strategy: expected one of ${engine.systemNames.join(', ')}, got "${name}"`);
  }
  return parsed;
}

function word(value: string | undefined, option: string, expected: string): string {
  if (value === undefined || value.trim() === '' || value.startsWith('-')) throw new UsageError(`${option}: expected ${expected}, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return value;
}

function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

/**
 * Keeps a minimal counterexample as a corpus entry named after its scenario and system; a case of
 * another file with the same scenario id gets a number added to its name rather than replace it.
 */
function saveMinimal(minimal: JudgedCase, source: CaseSource, dir: string): string {
  const scenarioPath = source.kind === 'scenario-file' ? resolve(source.path) : null;
  // Corpus entries name their scenario file from the project root when it lies inside it.
  const scenarioFile = scenarioPath === null ? undefined : scenarioPath.startsWith(`${PROJECT_ROOT}/`) ? relative(PROJECT_ROOT, scenarioPath) : scenarioPath;
  const name = `${minimal.scenario.id}-${minimal.system.engine}-${minimal.system.name}`.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
  const file = saveCorpusEntry(minimal, {
    name,
    note: `found by killpoint check: the earliest schedule that breaks ${minimal.broken.join(', ')}`,
    property: 'promised checks',
    // A system that runs a task of its own (a user's module) names no scenario: its strategy says it all.
    ...(scenarioFile !== undefined ? { scenarioFile } : source.kind === 'own-task' ? {} : { scenarioInline: null }),
    dir: resolve(dir),
    whenNameTaken: 'add a number',
  });
  return displayPath(resolve(PROJECT_ROOT, file));
}

/**
 * An entry of a user's module names no task (its strategy says it all): its task is named as a
 * check names it (a workflow by its function), so that its replay reads as the check did. The
 * name is never kept in the entry: one saved before names were read off the module replays alike.
 */
async function ownTaskNamed(entry: CorpusEntry): Promise<CorpusEntry> {
  const own = entry.system.ownTask;
  if (own === undefined || entry.scenarioFile !== null || entry.scenarioInline !== undefined || entry.scenario.id !== own.id) return entry;
  return { ...entry, scenario: await ownTaskOf(entry.system) };
}

export async function checkCommand(args: string[]): Promise<number> {
  const a = parseCheckArgs(args);
  if (!a.json) return checkParsed(a, (text) => console.log(text));
  // The agent's own output (its logs, in this process or on a thread of it) goes to stderr: stdout is the JSON's.
  const stdout = keepStdout();
  try {
    return await checkParsed(a, stdout.print);
  } finally {
    stdout.release();
  }
}

async function checkParsed(a: CheckArgs, printJson: (text: string) => void): Promise<number> {
  showWaits(!a.json);
  // A --save folder or an --html file that cannot be written is found now, not after the exploration it would end.
  if (a.saveDir !== null) prepareCorpusFolder(a.saveDir, '--save');
  if (a.htmlPath !== null) prepareReportFile(a.htmlPath);
  const files = a.files.length > 0
    ? a.files
    : readdirSync(LANTERN_DIR).filter((n) => n.endsWith('.json')).sort().map((n) => displayPath(join(LANTERN_DIR, n)));
  const engine = engineNamed(a.engine)!;
  const ownSystem = a.ownModule === null ? null : ownModuleSystem(a.ownModule.engine!, a.ownModule.options, a.tier ?? undefined, moduleEngines().map((m) => m.module));
  const systems = ownSystem !== null ? [ownSystem] : (a.strategies.length > 0 ? a.strategies : engine.defaultSystems).map((name) => engine.system(name, a.tier === null ? {} : { tier: a.tier })!);
  const scenarios: { scenario: Scenario; source: CaseSource }[] = ownSystem?.ownTask === undefined ? [] : [{ scenario: await ownTaskOf(ownSystem), source: { kind: 'own-task' } }];
  const corpusFiles: string[] = [];
  for (const file of ownSystem === null ? files : []) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ScenarioError(file, '(file)', `a readable JSON file (${(error as Error).message})`);
    }
    if (isCorpusEntry(raw)) corpusFiles.push(file);
    else scenarios.push({ scenario: loadScenarioFile(file), source: { kind: 'scenario-file', path: file } });
  }
  if (a.schedule !== null && (scenarios.length !== 1 || corpusFiles.length > 0)) throw new UsageError('--schedule: name exactly one scenario file');

  let failing = 0;
  const json: unknown[] = [];
  const strips: Strip[] = [];
  // The progress line (stderr) is cleared before each report (stdout), which a terminal shows on the same screen.
  let progress = startProgress('killpoint check', 0, { enabled: false });
  const print = (text: string): void => {
    if (a.json) return;
    progress.clear();
    console.log(text);
  };

  // The units of work, in a fixed order: every corpus entry, then every scenario under every
  // system. --shard takes its share of them; the progress line counts them.
  type Unit = { kind: 'corpus'; file: string } | { kind: 'scenario'; scenario: Scenario; source: CaseSource; system: SystemUnderTest };
  const allUnits: Unit[] = [
    ...corpusFiles.map((file): Unit => ({ kind: 'corpus', file })),
    ...scenarios.flatMap(({ scenario, source }) => systems.map((system): Unit => ({ kind: 'scenario', scenario, source, system }))),
  ];
  const units = shardOf(allUnits, a.shard);
  progress = startProgress('killpoint check', units.length, { enabled: a.schedule === null && !a.json });
  let stoppedEarly = false;

  try {
    for (const unit of units) {
      // A reader that went away (`check | head -1`) stops the work: nobody reads what is left.
      await yieldToReader();
      if (readerGone()) {
        stoppedEarly = true;
        break;
      }
      if (unit.kind === 'corpus') {
        const file = unit.file;
        const replay = await replayEntry(await ownTaskNamed(loadCorpusEntry(file)));
        const ok = replay.mismatches.length === 0;
        if (!ok) failing++;
        json.push({ corpusEntry: file, ok, mismatches: replay.mismatches, failed: replay.judged.failed, differences: differences(replay.judged.verdict) });
        print(`${file}: ${ok ? 'replays as expected' : 'DOES NOT MATCH'} (${replay.entry.note})`);
        for (const m of replay.mismatches) print(`  ${m}`);
        print(formatFailure({ judged: replay.judged, source: { kind: 'corpus-entry', path: file } }).split('\n').map((l) => `  ${l}`).join('\n'));
        progress.tick(file);
        continue;
      }
      const { scenario, source, system } = unit;
      if (a.schedule !== null) {
        const specs = a.schedule;
        // One session for both: the kills found by identity, then the case judged.
        const { kills, judged } = await withSession(system, scenario, async (session) => {
          const found = await runPlan(resolveKillsPlan(specs, a.interleaving), session);
          return { kills: found, judged: await runPlan(judgeCasePlan(scenario, system, { kills: found, interleaving: a.interleaving }), session) };
        });
        mustPickInRange([judged.baseline, judged.outcome], a.interleaving, '--interleaving');
        mustLandEveryKill(judged.outcome, kills, '--schedule');
        if (caseFails(judged)) failing++;
        json.push({ scenario: scenario.id, engine: system.engine, strategy: system.name, tier: tierOf(system), ok: !caseFails(judged), schedule: judged.schedule, failed: judged.failed, broken: judged.broken, differences: differences(judged.verdict), secondDeliveries: secondDeliveriesJson(judged) });
        print(formatFailure({ judged, source }));
        continue;
      }
      const options = { kills: a.kills, interleavingBound: a.interleavingBound, seed: a.seed };
      // A process engine's exploration takes minutes: its runs get a progress line of their own
      // (the drive starts one only for a batch that waits on processes, never for runs in memory).
      const runs = (batch: number) => startProgress(`${scenario.id} ${system.name}: runs`, batch, { enabled: !a.json });
      // One session for the exploration and the report's strip of single kills.
      const { exploration, cases } = await withSession(system, scenario, async (session) => {
        const explored = await exploreIn(session, system, options, { concurrency: availableParallelism(), progress: runs });
        return { exploration: explored, cases: a.htmlPath === null ? null : await runPlan(stripCasesPlan(scenario, system), session, { concurrency: availableParallelism() }) };
      });
      if (explorationFails(exploration)) failing++;
      if (cases !== null) strips.push(stripOf(exploration, system, scenario, cases, source));
      json.push({ engine: system.engine, ...explorationJson(exploration, source) });
      print(formatExploration(exploration, source));
      if (a.saveDir !== null && exploration.minimal !== null) {
        const saved = saveMinimal(exploration.minimal, source, a.saveDir);
        print(`  kept as a corpus entry: ${saved} (replay: npx killpoint check ${saved})`);
      }
      progress.tick(`${scenario.id} ${system.name}`);
    }
  } finally {
    progress.end();
  }
  if (stoppedEarly) return failing === 0 ? 0 : 1;
  if (a.htmlPath !== null) {
    writeReportFile(a.htmlPath, checkReportHtml({ kind: 'check', strips }));
    if (!a.json) console.log(`HTML report: ${a.htmlPath}`);
  }
  // A shard says what split it is of (the units and the options), so that merge joins only shards of one split.
  const split = { units: allUnits.map((u) => (u.kind === 'corpus' ? u.file : `${u.scenario.id} ${u.system.engine} ${u.system.name}`)), kills: a.kills, interleavings: a.interleavingBound, seed: a.seed };
  if (a.json) printJson(JSON.stringify(a.shard === null ? json : { shard: a.shard, units: allUnits.length, split, results: json }, null, 2));
  else {
    const share = a.shard === null ? '' : ` in shard ${a.shard.index}/${a.shard.count} (${units.length} of ${allUnits.length} scenario x system units; join the shards' --json with killpoint merge)`;
    console.log(failing === 0 ? `every promised check holds${share}` : `${failing} case${failing === 1 ? '' : 's'} broke a promised check${share}`);
  }
  return failing === 0 ? 0 : 1;
}

