// killpoint/vitest: every kill point of your agent as vitest tests. One call declares a suite: the
// schedules kept in your corpus folder replay first, then one test per task explores every kill
// point (up to `kills` kills) and fails with the report the command line prints: the minimal kill
// point, what differs from the run never killed, and the one command that replays it. A task is an
// agent of your own behind the kill protocol, or a scenario file under an engine's system.
//
//   import { killpointTests } from 'killpoint/vitest';
//   killpointTests('refund agent', { agent: ['node', 'dist/agent.js'], kills: 2, corpus: 'test/killpoint-corpus' });
//   killpointTests('refund on LangGraph', { scenarios: ['test/refund.json'], engine: 'langgraph', strategy: 'react/sync+keys' });
//   killpointTests('support agent', { langgraph: 'src/agent.ts', input: { messages: [...] } });
//   killpointTests('refund workflow', { dbos: 'src/workflow.ts', input: { orderId: 'O-7' } });
//   killpointTests('refund service', { restate: 'src/service.ts', input: { orderId: 'O-7' } });
//   killpointTests('refund on Vercel', { vercelWorkflow: 'src/workflows/refund.ts', input: { orderId: 'O-7' } });
//   await killpointTests('refund agent, kill by kill', { agent: ['node', 'dist/agent.js'], each: 'kill point' });

import { describe as vitestDescribe, test as vitestTest } from 'vitest';
import { basename } from 'node:path';
import { agentKillPoints, checkAgent, checkAgentSchedule, type AgentCommand } from '../harness/api/check-agent.js';
import { checkScenario, checkScenarioSchedule, scenarioKillPoints, type ScenarioCheck, type ScenarioScheduleCheck } from '../harness/api/check-scenario.js';
import { check, checkSchedule, killPointsOf } from '../harness/api/check-module.js';
import { moduleEngines } from '../harness/registry.js';
import type { ModuleEngine } from '../harness/engine.js';
import { loadScenarioFile } from '../model/load.js';
import { addToUserCorpus, loadUserCorpus } from './user-corpus.js';

interface SuiteOptions {
  /** 1: every kill point of the first life; 2: and every kill point of each recovery. Default 1. */
  kills?: 1 | 2;
  /** A folder of schedules that once failed: replayed first; a new failure is added to it. */
  corpus?: string;
  /** Lives run side by side. Default 2. */
  concurrency?: number;
  /** Per test (vitest's timeout). Default 10 minutes: a whole search runs in one test. */
  timeoutMs?: number;
  /**
   * `task` (default): one test per task explores every kill point. `kill point`: one test per kill
   * point of the task's run never killed (kills: 1 only), so a report lists each kill point as a
   * test of its own; the run never killed is run first, so the call must be awaited at the top of
   * the test file: `await killpointTests(...)`.
   */
  each?: 'task' | 'kill point';
}

/** An agent of your own, in any language, behind the kill protocol (killpoint/agent for TypeScript). */
export interface AgentSuiteOptions extends SuiteOptions {
  /** The command that starts one life of the agent (it speaks the kill protocol: killpoint/agent). */
  agent: AgentCommand;
  /**
   * The tasks, by name, each with the arguments added to the agent's command for it. Default: one
   * task, the agent's own.
   */
  tasks?: Record<string, readonly string[]>;
  /** A life that runs longer is taken to hang. Default: ten times the longest life of the run never killed plus 5 s (120 s for that run). */
  lifeTimeoutMs?: number;
}

/** Scenario files run under an engine's system (killpoint's own runner, LangGraph, DBOS). */
export interface ScenarioSuiteOptions extends SuiteOptions {
  /** Scenario files, one task each (named by the file). */
  scenarios: readonly string[];
  /** A registered engine: "scripted" (default), "langgraph", "dbos", ... */
  engine?: string;
  /** The engine's system, e.g. "journal+keys", "react/sync+keys", "pglite/workflow+keys". */
  strategy: string;
  /** Seeds the sample of interleavings above the bound; shown in each test's title. Default 1. */
  seed?: number;
  /** Most interleavings of parallel calls explored; above it a seeded sample. Default 32. */
  interleavingBound?: number;
}

/** What every module of your own is given besides its path: its input, and how to explore it. */
interface OwnModuleOptions extends SuiteOptions {
  /** The module's input (a graph's for invoke, a workflow's or a handler's argument); or `inputFile`, a JSON file holding it. */
  input?: unknown;
  inputFile?: string;
  effectsExport?: string;
  /** The outside world's turns, one per wait of the run, in order (a person's answers: `resume: [true]`); or `resumeFile`, a JSON file holding the list. */
  resume?: unknown[];
  resumeFile?: string;
  /** With resume: a turn whose delivery a kill may have cut is delivered again to the recovery, as a web server behind an Approve button does when it saw no acknowledgement; the report says what the second delivery did. */
  redeliver?: boolean;
  /**
   * The agent's HTTP traffic, kept in your repository (LangGraph, DBOS, Restate and Vercel Workflow modules): when the file is
   * missing, one run never killed goes to the real endpoints and writes it; when it is there, every
   * life is answered from it, and the writes the services committed are the module's effects.
   */
  cassette?: string;
  /** Write the cassette again, even where it is there. */
  record?: boolean;
  /** URL prefixes of model endpoints beside the known APIs (OpenAI, Anthropic, Google, the AI Gateway). */
  modelUrl?: string[];
  /** Headers that carry an idempotency key beside Idempotency-Key and its usual variants. */
  idempotencyHeader?: string[];
  /** Most interleavings of parallel calls or steps explored; above it a seeded sample. Default 32. */
  interleavingBound?: number;
  seed?: number;
}

/** A LangGraph graph of your own, unchanged: the module that builds it and reads its effects, and its input. */
export interface LangGraphSuiteOptions extends OwnModuleOptions {
  /** The module (from the current folder: the project root in a vitest run) that exports createGraph(ctx) and readEffects(ctx). */
  langgraph: string;
  graphExport?: string;
}

/** A DBOS workflow of your own, unchanged: the module that registers it and reads its effects, and its input. */
export interface DbosSuiteOptions extends OwnModuleOptions {
  /** The module (from the current folder: the project root in a vitest run) that exports createWorkflow(ctx) and readEffects(ctx). */
  dbos: string;
  workflowExport?: string;
}

/** A Restate service of your own, unchanged: the module that defines it and reads its effects, and its input. */
export interface RestateSuiteOptions extends OwnModuleOptions {
  /** The module (from the current folder: the project root in a vitest run) that exports createService(ctx) and readEffects(ctx). */
  restate: string;
  serviceExport?: string;
  /** The handler invoked; by default the service's only one. */
  handler?: string;
}

/** A Vercel workflow of your own, unchanged: the module that holds its "use workflow" function and exports readEffects, and its input. */
export interface VercelWorkflowSuiteOptions extends OwnModuleOptions {
  /** The module (from the current folder: the project root in a vitest run); its steps find their data folder in KILLPOINT_DATA_DIR. */
  vercelWorkflow: string;
  /** The workflow started; by default the module's only one. */
  workflowExport?: string;
}

/**
 * A module of your own for any engine that checks one, by the field its engine declares (its
 * Engine.module.vitestField, e.g. `{ mastra: 'src/workflow.ts', input }`) and the engine's own options.
 */
export interface AnyModuleSuiteOptions extends OwnModuleOptions {
  [moduleField: string]: unknown;
}

export type KillpointTestsOptions = AgentSuiteOptions | ScenarioSuiteOptions | LangGraphSuiteOptions | DbosSuiteOptions | RestateSuiteOptions | VercelWorkflowSuiteOptions | AnyModuleSuiteOptions;

/** The kind of module the options name, by its engine's vitest field. */
function moduleNamed(options: object): { engine: string; module: ModuleEngine } | undefined {
  return moduleEngines().find((m) => m.module.vitestField in options);
}

/** The vitest functions the suite is declared with (replaceable, so that killpoint can test this module). */
export interface TestApi {
  describe: (name: string, body: () => void) => void;
  test: (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
}

const VITEST: TestApi = { describe: vitestDescribe, test: vitestTest };

const ONE_TASK = 'its task';

function agentFor(agent: AgentCommand, extra: readonly string[]): AgentCommand {
  if (extra.length === 0) return agent;
  return Array.isArray(agent) ? [...(agent as readonly string[]), ...extra] : { command: (agent as { command: string }).command, args: [...((agent as { args?: readonly string[] }).args ?? []), ...extra] };
}

/** One task of a suite, whatever runs it: the search, one schedule, its kill points. */
interface Task {
  name: string;
  explore(): Promise<{ ok: boolean; report: string; minimal: { kills: number[]; interleaving: number[]; found: string } | null }>;
  replay(kills: readonly number[], interleaving: readonly number[]): Promise<{ ok: boolean; report: string; found: string }>;
  killPoints(): Promise<{ index: number; identity: string }[]>;
}

/** A replayed schedule with the line a corpus entry keeps of what it found. */
function foundOf(r: { ok: boolean; report: string; failure: { failed: readonly string[]; differences: readonly string[] } }): { ok: boolean; report: string; found: string } {
  return { ok: r.ok, report: r.report, found: `${r.failure.failed.join(', ')}: ${r.failure.differences.join('; ')}` };
}

function agentTasks(suite: string, options: AgentSuiteOptions, kills: 1 | 2): Task[] {
  const tasks = Object.entries(options.tasks ?? { [ONE_TASK]: [] });
  if (tasks.length === 0) throw new TypeError(`killpointTests("${suite}"): tasks: expected at least one task`);
  return tasks.map(([name, extra]) => {
    const check = { agent: agentFor(options.agent, extra), kills, concurrency: options.concurrency, lifeTimeoutMs: options.lifeTimeoutMs };
    return {
      name,
      explore: async () => {
        const c = await checkAgent(check);
        return { ok: c.ok, report: c.report, minimal: c.minimal && { kills: c.minimal.kills, interleaving: [], found: `${c.minimal.failed.join(', ')}: ${c.minimal.differences.join('; ')}` } };
      },
      replay: async (k) => foundOf(await checkAgentSchedule(check, k)),
      killPoints: () => agentKillPoints(check),
    };
  });
}

function scenarioTasks(suite: string, options: ScenarioSuiteOptions, kills: 1 | 2): Task[] {
  if (!Array.isArray(options.scenarios) || options.scenarios.length === 0 || !options.scenarios.every((f) => typeof f === 'string' && f !== '')) {
    throw new TypeError(`killpointTests("${suite}"): scenarios: expected a list of scenario files, at least one`);
  }
  if (typeof options.strategy !== 'string' || options.strategy === '') throw new TypeError(`killpointTests("${suite}"): strategy: expected the engine's system, e.g. "journal+keys"`);
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new TypeError(`killpointTests("${suite}"): seed: expected an integer, got ${String(options.seed)}`);
  return options.scenarios.map((file) => {
    // Loaded now, so a scenario with a mistake fails the declaration, naming its file and field.
    const scenario = loadScenarioFile(file);
    const target = { scenario, engine: options.engine, strategy: options.strategy };
    const named = { ...target, scenario: file };
    return {
      name: basename(file),
      explore: async () => {
        const c = await checkScenario({ ...named, kills, seed, interleavingBound: options.interleavingBound, concurrency: options.concurrency });
        const m = c.exploration.minimal;
        return { ok: c.ok, report: c.report, minimal: c.minimal && m && { kills: c.minimal.kills, interleaving: m.schedule.interleaving, found: `${c.minimal.failed.join(', ')}: ${c.minimal.differences.join('; ')}` } };
      },
      replay: async (k, picks) => foundOf(await checkScenarioSchedule(named, k, picks)),
      killPoints: () => scenarioKillPoints(named),
    };
  });
}

/** The one task of a module of the user's own, whichever engine runs it (its declaration names its field and its options). */
function moduleTasks(suite: string, options: OwnModuleOptions & Record<string, unknown>, kind: { engine: string; module: ModuleEngine }, kills: 1 | 2): Task[] {
  const field = kind.module.vitestField;
  const module = options[field];
  if (typeof module !== 'string' || module === '') throw new TypeError(`killpointTests("${suite}"): ${field}: expected the path of the module that exports ${kind.module.exports}`);
  if (options.input === undefined && options.inputFile === undefined) throw new TypeError(`killpointTests("${suite}"): input: expected the module's input (or inputFile, a JSON file)`);
  const given = (fields: readonly string[]) => Object.fromEntries(fields.filter((f) => options[f] !== undefined).map((f) => [f, options[f]]));
  const target = { engine: kind.engine, module, ...given(['input', 'inputFile', 'effectsExport', 'resume', 'resumeFile', 'redeliver', ...kind.module.flags.map((f) => f.field)]) };
  const choices = { kills, seed: options.seed ?? 1, interleavingBound: options.interleavingBound, concurrency: options.concurrency };
  const checks = { explore: () => check({ ...target, ...choices }), replay: (k: readonly number[], p: readonly number[]) => checkSchedule(target, k, p), killPoints: () => killPointsOf(target) };
  return [{
    name: basename(module),
    explore: async () => {
      const c = await checks.explore();
      const m = c.exploration.minimal;
      return { ok: c.ok, report: c.report, minimal: c.minimal && m && { kills: c.minimal.kills, interleaving: m.schedule.interleaving, found: `${c.minimal.failed.join(', ')}: ${c.minimal.differences.join('; ')}` } };
    },
    replay: async (k, picks) => foundOf(await checks.replay(k, picks)),
    killPoints: checks.killPoints,
  }];
}

export function killpointTests(suite: string, options: KillpointTestsOptions & { each: 'kill point' }, api?: TestApi): Promise<void>;
export function killpointTests(suite: string, options: KillpointTestsOptions, api?: TestApi): void;
export function killpointTests(suite: string, options: KillpointTestsOptions, api: TestApi = VITEST): void | Promise<void> {
  if (typeof suite !== 'string' || suite === '') throw new TypeError('killpointTests: expected the suite name as a non-empty string');
  const kind = typeof options === 'object' && options !== null ? moduleNamed(options) : undefined;
  if (typeof options !== 'object' || options === null || (!('agent' in options) && !('scenarios' in options) && kind === undefined) || ('agent' in options && options.agent === undefined)) {
    throw new TypeError(`killpointTests("${suite}"): expected options with agent (the command that starts one life), scenarios (scenario files) and strategy, or ${moduleEngines().map((m) => m.module.vitestField).join(' / ')} (your module) and input`);
  }
  const kills = options.kills ?? 1;
  if (kills !== 1 && kills !== 2) throw new TypeError(`killpointTests("${suite}"): kills: expected 1 or 2, got ${String(kills)}`);
  const each = options.each ?? 'task';
  if (each !== 'task' && each !== 'kill point') throw new TypeError(`killpointTests("${suite}"): each: expected "task" or "kill point", got ${JSON.stringify(each)}`);
  if (each === 'kill point' && kills !== 1) throw new TypeError(`killpointTests("${suite}"): each: "kill point" declares one test per kill point of the first life, so kills must be 1, got ${kills}`);
  const tasks = 'agent' in options ? agentTasks(suite, options as AgentSuiteOptions, kills) : kind !== undefined ? moduleTasks(suite, options as OwnModuleOptions & Record<string, unknown>, kind, kills) : scenarioTasks(suite, options as ScenarioSuiteOptions, kills);
  const seedNote = 'agent' in options ? '' : ` (with seed=${options.seed ?? 1})`;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const corpus = options.corpus === undefined ? [] : loadUserCorpus(options.corpus, suite);
  const unknown = corpus.find((e) => !tasks.some((t) => t.name === e.task));
  if (unknown !== undefined) throw new TypeError(`killpointTests("${suite}"): ${unknown.file}: task: expected one of ${tasks.map((t) => JSON.stringify(t.name)).join(', ')}, got ${JSON.stringify(unknown.task)}`);

  const declareCorpus = () => {
    for (const entry of corpus) {
      const task = tasks.find((t) => t.name === entry.task)!;
      const picks = entry.interleaving.length > 0 ? ` with picks ${entry.interleaving.join(',')}` : '';
      api.test(`${entry.task}: replays kill schedule ${entry.kills.join(',')}${picks} from the corpus (${entry.file})`, async () => {
        const replay = await task.replay(entry.kills, entry.interleaving);
        if (!replay.ok) throw new Error(`a schedule kept in the corpus fails again:\n${replay.report}`);
      }, timeoutMs);
    }
  };
  const keep = (task: Task, kills: number[], interleaving: number[], found: string): string => {
    if (options.corpus === undefined) return '';
    const file = addToUserCorpus(options.corpus, { suite, task: task.name, kills, interleaving, found });
    return `\n(kept in the corpus as ${file}: it replays first from now on)`;
  };

  if (each === 'kill point') {
    return Promise.all(tasks.map((t) => t.killPoints())).then((lists) => {
      api.describe(suite, () => {
        declareCorpus();
        tasks.forEach((task, i) => {
          for (const point of lists[i]!) {
            // One kill point of the default order: no sample, so no seed in the title.
            api.test(`${task.name}: survives a kill after ${point.identity} (kill point ${point.index})`, async () => {
              const replay = await task.replay([point.index], []);
              if (!replay.ok) throw new Error(`${replay.report}${keep(task, [point.index], [], replay.found)}`);
            }, timeoutMs);
          }
        });
      });
    });
  }
  api.describe(suite, () => {
    declareCorpus();
    for (const task of tasks) {
      api.test(`${task.name}: survives every kill point, up to ${kills} kill${kills === 1 ? '' : 's'}${seedNote}`, async () => {
        const check = await task.explore();
        if (check.ok) return;
        const kept = check.minimal === null ? '' : keep(task, check.minimal.kills, check.minimal.interleaving, check.minimal.found);
        throw new Error(`${check.report}${kept}`);
      }, timeoutMs);
    }
  });
}

export { loadUserCorpus, addToUserCorpus, type UserCorpusEntry, UserCorpusError } from './user-corpus.js';
