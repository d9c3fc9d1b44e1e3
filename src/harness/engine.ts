// The one seam for a system under test. An engine (killpoint's own scripted runner, an agent in
// any language behind the kill protocol, a real durable engine) offers systems; a system opens a
// session on a scenario, which runs it under kill schedules, each leaving a RunOutcome, and keeps
// what those runs share until it is closed. The life loop (life-loop.ts), the checks
// (src/check), the search (src/search), the reports and the command line are written once against
// this interface: adding an engine is one folder and one line in registry.ts.

import type { CheckName } from './check/checks.js';
import type { LifeRecord, RunOutcome, Schedule } from './check/outcome.js';
import type { Conversation } from '../model/conversation.js';
import type { Scenario } from '../model/scenario.js';
import type { RunEvent } from './check/events.js';
import type { MaybePromise } from './maybe-promise.js';

/**
 * Where a system's lives run: simulated in memory (killpoint's own runner), a real engine inside
 * killpoint's own process (cut off from its stores at the kill: src/harness/in-process/), or a
 * process each, killed with SIGKILL.
 */
export type LifeTier = 'simulated' | 'in-process' | 'process';

/** What a caller may ask of an engine's system beyond its name. */
export interface SystemOptions {
  /** Real engines that run both ways: in process (their default, where proved equal) or as processes killed with SIGKILL. */
  tier?: 'in-process' | 'process';
}

/** Where the system's lives run, for the report and --json. */
export function tierOf(system: SystemUnderTest): LifeTier {
  return system.tier ?? (system.inProcess ? 'simulated' : 'process');
}

export interface SystemUnderTest {
  /** The engine it belongs to, as registered. */
  engine: string;
  /** Its name within the engine (for the scripted engine, a strategy or broken variant); a RunOutcome's `strategy`. */
  name: string;
  summary: string;
  /** The checks that must hold at every kill schedule; the others are reported but not promised. */
  promised: readonly CheckName[];
  /** The kinds of event it can be killed right after: the kill points it exposes. */
  killPoints: readonly string[];
  /** The command-line words that select it again (after the file), for replay commands. */
  selector: readonly string[];
  /** True when its sessions answer at once (in process); false when they answer with promises (processes). */
  inProcess: boolean;
  /** Where its lives run; without it, 'simulated' when inProcess, else 'process' (tierOf). */
  tier?: LifeTier;
  /**
   * Set when the system runs a task of its own instead of a scenario (a user's graph on its own
   * input): the task its sessions are opened on, so a corpus entry of it names no scenario.
   */
  ownTask?: Scenario;
  /**
   * The name of that task where the system can tell it only once its module is built (a workflow
   * by its function), rather than by the module's file: see ownTaskOf.
   */
  ownTaskName?: () => Promise<string>;
  /**
   * Opens a session on a scenario: what the system keeps for that scenario's runs (a model, the
   * durable states named so far, their folders, warm children) belongs to the session, and its
   * close() lets it go. Opening costs little: a session makes what it keeps when first asked.
   * The search opens one per exploration (src/harness/session.ts: withSession).
   */
  open(scenario: Scenario): Session;
}

/** A system at work on one scenario: its runs and lives, and what they keep, until closed. */
export interface Session {
  readonly scenario: Scenario;
  /**
   * Runs the scenario under a kill schedule, from fresh durable stores. In-memory engines answer at
   * once; engines whose lives are processes answer with a promise. The search drives either the
   * same way (src/harness/search/drive.ts).
   */
  run(schedule: Schedule): MaybePromise<RunOutcome>;
  /**
   * Set when the system runs one life at a time from a durable state it can name. A recovery
   * depends only on what survived the kill, so the explorer (src/harness/search/equivalence.ts) runs
   * one recovery per distinct durable state and still judges every kill point. Without it, every
   * schedule is run from scratch.
   */
  lives?: SessionLives;
  /**
   * Lets go of what the session keeps (state folders, rows outside them, warm children): the
   * session is not used after it. Closing twice is closing once. Sessions of process engines
   * are closed by an interrupted parent too (src/harness/process/processes.ts).
   */
  close(): MaybePromise<void>;
}

/**
 * What survived a kill, as the system keeps it: an opaque value it can start a life from. `digest`
 * names its contents (the shop, journal, step records, outbox: whatever the system's lives can read
 * back); two states with one digest must be the same for any life started from them.
 */
export interface DurableState {
  readonly digest: string;
}

/** Where a life starts: a durable state, its number among the run's lives, the interleaving picks left to it. */
export interface LifeStart {
  state: DurableState;
  lifeIndex: number;
  picks: readonly number[];
}

/** One life run to its end (never killed), with what a kill after each of its events would have left. */
export interface LifeRun {
  /** How the life ended (finished or failed), with every event. */
  record: LifeRecord;
  /** The conversation of a life that finished (null when it found nothing to do, or failed). */
  conversation: Conversation | null;
  /** The interleaving picks this life took, and how many calls each chose among. */
  picks: number[];
  widths: number[];
  /** Killed right after event k (-1: before the first): the durable state left and how many picks the life had taken. */
  after(k: number): { state: DurableState; picksTaken: number };
  /** What the stores hold once the life ended. */
  stores: Pick<RunOutcome, 'delivered' | 'writes' | 'refusals' | 'shop'>;
  /**
   * Systems with join points (SessionLives.runHead): the events right after which this life was at
   * one, in order. From each it went on exactly as a life started from the state after that event
   * would, so the explorer takes the rest of this life for that one.
   */
  joinPoints?: number[];
}

/** A life stopped at a join point (SessionLives.runHead): what it did up to there, and where it goes on. */
export interface LifeHead {
  /** The events up to the join point (at least one). */
  events: RunEvent[];
  /** The join points it passed before the one it stopped at (as LifeRun.joinPoints). */
  joinPoints?: number[];
  /** The interleaving picks the head took, and how many calls each chose among. */
  picks: number[];
  widths: number[];
  /** Killed right after event k of the head (-1: before the first), as LifeRun.after. */
  after(k: number): { state: DurableState; picksTaken: number };
  /** The life goes on as a life started from this state, with the picks left after the head's. */
  joins: DurableState;
}

/** The capability: run a life from a durable state of the session's scenario. In-process systems answer at once, process tiers with a promise. */
export interface SessionLives {
  /** The durable state of a fresh run (the scenario's starting rows, nothing else). */
  initial(): DurableState;
  /**
   * Everything a life started here reads, except the interleaving picks (the explorer matches
   * those by the picks the life consumed): the state's digest, and the life number when the
   * system's lives read it (fresh random keys are seeded by it).
   */
  key(start: LifeStart): string;
  runLife(start: LifeStart): MaybePromise<LifeRun>;
  /**
   * Optional, in-process systems with join points: moments after at least one event where a life
   * keeps nothing in memory that its durable state does not hold (a journal just saved with the
   * whole conversation, a workflow whose steps are all recorded). From one, a life goes on exactly
   * as a life started from that state would. Runs a life from `start`, asking `stopAt` at each
   * join point (with the state there and the picks taken so far) whether to stop: the explorer
   * stops a life where it meets a state it has explored before, so a recovery runs only what it
   * does before it meets one, and single kills cost time linear in the task's length. Answers a
   * LifeHead when it stopped, a LifeRun when it ran to its end; each says which join points it
   * passed (joinPoints). Where a life's whole events are needed (a verdict to judge, a report),
   * the explorer runs it again with runLife.
   */
  runHead?(start: LifeStart, stopAt: (state: DurableState, picksTaken: number) => boolean): LifeRun | LifeHead;
  /**
   * Process tiers only: a life run to its end cannot say what a kill would have left, so `after(k)`
   * of its LifeRun is known once a child started from the same state has been killed right after
   * each event k, its real files digested (src/harness/process/process-lives.ts). The explorer asks for it
   * only for lives it cuts. In-process systems know `after` from the life itself.
   */
  cutEvery?(start: LifeStart, run: LifeRun, concurrency: number): Promise<void>;
  /** cutEvery runs the life once more and copies its state after each event (an in-process tier), rather than a child killed at each. */
  cutsInOneLife?: boolean;
}

/**
 * A system typed as answering at once (in memory, such as the scripted engine's): everything its
 * sessions answer is a plain value, so the search answers it with plain values too (Answer).
 */
export interface InProcessSystem extends SystemUnderTest {
  inProcess: true;
  open(scenario: Scenario): InProcessSession;
}

/** A session of an in-process system: its runs and lives answered at once, nothing to wait for when closed. */
export interface InProcessSession extends Session {
  run(schedule: Schedule): RunOutcome;
  lives?: InProcessLives;
  close(): void;
}

/** The lives of an in-process session: each answered at once, none cut by processes. */
export interface InProcessLives extends SessionLives {
  runLife(start: LifeStart): LifeRun;
  cutEvery?: undefined;
}

/**
 * What the search answers for a system or a session: a plain value for one typed in process
 * (nothing it does ever waits), else a value or a promise, whichever its answers make it (await it).
 */
export type Answer<S extends SystemUnderTest | Session, T> = S extends InProcessSystem | InProcessSession ? T : MaybePromise<T>;

export interface Engine {
  name: string;
  summary: string;
  /** Every system it knows by name, for validation and help. */
  systemNames: readonly string[];
  /** The systems `check` explores when none is named. */
  defaultSystems: readonly string[];
  /** The system of this name; undefined when the engine has none. */
  system(name: string, options?: SystemOptions): SystemUnderTest | undefined;
  /**
   * The tiers its systems can run in, the default first; without it, the one its systems say
   * (tierOf). Asking a system for a tier not listed here is bad input.
   */
  tiers?: readonly ('in-process' | 'process')[];
  /**
   * Set when the engine's agents run a task of their own instead of a scenario (an agent behind the
   * kill protocol): the task its systems are given, so a corpus entry of the engine names none.
   */
  ownTask?: Scenario;
  /**
   * The kinds of event its systems emit beyond the scenario's own (a journal saved, a checkpoint, a
   * step recorded), each with its one-line meaning and its label: registerEngine registers them
   * (check/event-kinds.ts). A kind another engine emits too is that one declaration, listed again.
   */
  eventKinds?: readonly import('./check/event-kinds.js').EngineEventKind[];
  /**
   * Set when the engine checks a user's own module (a graph, a workflow, a service): how the
   * command line, the API and the vitest helper name it, and its system (user-module/module-engine.ts).
   */
  module?: ModuleEngine;
}

/** A user's module and its input, as the command line, the API and the vitest helper name them. */
/** The options of an agent's traffic (user-module/traffic-target.ts), as the command line, the API and the vitest helper give them. */
export interface TrafficOptions {
  cassette?: string;
  record?: boolean | string;
  /** URL prefixes of model endpoints beside the known APIs: a list, or comma-separated. */
  modelUrl?: string | readonly string[];
  /** Header names that carry an idempotency key beside the usual ones: a list, or comma-separated. */
  idempotencyHeader?: string | readonly string[];
}

export interface UserModuleOptions extends TrafficOptions {
  /** The module's path (relative to the current folder). */
  module: string;
  /** The input: a JSON file's path, or the JSON itself (`inputFile`: a file when there is one, else JSON); or the value (`input`). */
  inputFile?: string;
  input?: unknown;
  /**
   * The outside world's turns, one per wait of the run, in order (a person's answer to an
   * approval): a JSON file's path, or the JSON itself (`resumeFile`); or the list (`resume`).
   * Only engines that expose their waits take it (ModuleEngine.waits).
   */
  resumeFile?: string;
  resume?: unknown[];
  /** With a resume: a turn a kill may have cut is delivered again to the recovery (user-module/turns.ts). Every engine that delivers turns delivers one again, as its front end would, and says where it went. */
  redeliver?: boolean | string;
}

/** An option that belongs to one kind of module: its flag, the field of the options it sets, what it expects. */
export interface ModuleFlag {
  flag: `--${string}`;
  field: string;
  /** Its value in the help: NAME, FILE. */
  value: string;
  expected: string;
  /** A flag that takes no value: it sets its field to true. */
  boolean?: true;
}

/** A user's module as given to an engine: its path, its input, and the fields of the engine's own flags. */
export type ModuleEngineOptions = UserModuleOptions & { effectsExport?: string } & Record<string, unknown>;

export interface ModuleEngine {
  /** The command-line option that names the module: `--langgraph`. */
  cliOption: `--${string}`;
  /** The field of killpointTests' options that names it: `langgraph`. */
  vitestField: string;
  /** The kind of module, for help: "your own LangGraph graph". */
  kind: string;
  /** What the module exports, for messages and help: "createGraph(ctx)". */
  exports: string;
  /** The options of this kind of module alone (the input and --effects-export are every module's). */
  flags: readonly ModuleFlag[];
  /** What the run waits on, for engines that deliver --resume's turns at their waits (LangGraph: "interrupt()"); absent, the engine refuses --resume. */
  waits?: string;
  /** Its system, from the options as given (checked: bad input names the option) and the tier asked for (else the engine's default). */
  system(options: ModuleEngineOptions, tier?: 'in-process' | 'process'): SystemUnderTest;
}

/** The run never killed is the yardstick: one that does not finish leaves nothing to judge against. */
export class BaselineDidNotFinish extends Error {
  constructor(system: SystemUnderTest, outcome: RunOutcome) {
    const life = outcome.lives[0];
    super(`${system.engine} ${system.name} on ${outcome.scenarioId}: the run without a kill did not finish${life?.error ? `: ${life.error}` : ''}`);
    this.name = 'BaselineDidNotFinish';
  }
}

/**
 * The system cannot be judged on what it was given (a checkpoint database that is not one, a run
 * that never saves a durable state to recover from): bad input, not a verdict.
 */
export class SystemInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SystemInputError';
  }
}
