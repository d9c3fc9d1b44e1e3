// The seam's SessionLives for engines whose lives are processes, written once for all of them: the
// explorer by equivalence (src/harness/search/equivalence.ts) then runs one recovery per distinct durable
// state instead of one per kill point, and a life's kill points are cut from one life run to its
// end instead of each being run from scratch.
//
// Nothing is taken on trust from the model of the engine: every kill point is still suffered by a
// real child, started from a copy of the same state folder and killed with SIGKILL right after
// event k. What it left is digested from the real files (state-digest.ts); kill points whose
// folders digest the same share one recovery. The killed child must also have written exactly the
// first k + 1 events of the life run to its end (same state, same picks): a life that does not
// repeat is reported, never judged on.
//
// A kill before the first event (-1) leaves the state the life started from: no child is needed
// to know that.
//
// The states belong to a session (engine.ts: Session): each session of a process engine keeps its
// scenario's states in folders of its own, made when its explorer first asks for the initial state,
// and removes them (and what they keep outside, and its warm children) when it is closed.

import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LifeRecord, RunOutcome, Schedule } from '../check/outcome.js';
import type { Conversation } from '../../model/conversation.js';
import type { Scenario } from '../../model/scenario.js';
import type { DurableState, LifeRun, LifeStart, Session, SessionLives } from '../engine.js';
import { inPool } from './pool.js';
import { heldSession, heldTempDir, Interrupted, wasInterrupted } from './processes.js';
import { LifeTimes } from '../life-time-limit.js';
import { copyFolder } from './folder-files.js';
import { requirePackages, type PackageNeeds } from './package-paths.js';
import { digestStateFolder, folderBytesKey, type Canonical, type StateFile } from './state-digest.js';
import { WarmPool, type WarmPoolFigures } from './warm-pool.js';

/** One life of a process engine, as its tier runs it. */
export interface TierLife {
  record: LifeRecord;
  conversation: Conversation | null;
  /** The interleaving picks the life took, and how many calls each chose among. */
  picks: number[];
  widths: number[];
  /** The kill points the life copied its state at (request.cutInto), each in `after-<k>` there. */
  cuts?: LifeCut[];
}

/**
 * A copy of a life's state folder taken right after its event `k`, with `picksTaken` picks taken by
 * then: in `dir` (with the key of its bytes, folderBytesKey, as the life read them), or, when the
 * folder's bytes had not changed since the copy of an earlier event, that event (`sameAs`), whose
 * copy serves both.
 */
export type LifeCut = { k: number; picksTaken: number } & ({ dir: string; bytesKey: string } | { sameAs: number });

export interface TierLifeRequest {
  /** A folder of the life's own for its run files (events, result), and its state folder, which it changes. */
  runDir: string;
  stateDir: string;
  lifeIndex: number;
  killAfter: number | null;
  picks: readonly number[];
  /**
   * How long the life may run, as its session's lives never killed say (life-time-limit.ts:
   * LifeTimes): pass the request to lifeTimeoutFrom, which lets the engine's variable override it.
   */
  timeoutMs?: number;
  /** The exploration's processes started ahead of their lives: pass it to runProcessLife. */
  warm?: WarmPool;
  /**
   * Asked only of a tier that `cutsInOneLife`: a folder into which the life copies its state right
   * after each event k, synchronously, as \`after-<k>\` (what a kill there would leave), answering
   * with what it copied (TierLife.cuts). A folder rather than a callback, so that a life run on a
   * thread of its own (in-process/life-threads.ts) is asked the same.
   */
  cutInto?: string;
  /**
   * With `cutInto`: hears of each copy as soon as it is written, on killpoint's own thread, while
   * the life runs on (its copies are kept while it runs: their digests are read on a core the
   * life does not use). Pass it to runInProcessLife, or to LifeThreads.run for a life on a thread.
   */
  onCut?: (cut: LifeCut) => void;
}

/** What an engine gives to be explored by equivalence. */
export interface ProcessTier {
  /** Names the engine and system in errors and temp folders (no spaces). */
  name: string;
  /** The files of a state folder, in the order they are digested. */
  files: readonly StateFile[];
  /** A fresh canonical form for each digest (see renameUuidsAndTimes), when stored values are made of the clock or of random numbers. */
  canonical?: () => Canonical;
  /** Whether a life reads its number (then it is part of the key, as for the scripted engine's random keys). */
  readsLifeIndex?: boolean;
  /**
   * Its lives run in killpoint's own process and hand over their state after each event in one
   * synchronous step (request.cutInto), exactly as their kill does (in-process/in-process-life.ts):
   * a life's kill points are then cut from one repeat of it instead of one killed life each.
   */
  cutsInOneLife?: boolean;
  /** The packages its lives load, checked before the first (a missing one is bad input naming it). */
  needs?: PackageNeeds;
  /** Writes a fresh run's durable state (the scenario's shop) into an empty folder. */
  prepare(scenario: Scenario, stateDir: string): void;
  /** Runs one life, in a process, from the state in `stateDir`. */
  life(scenario: Scenario, request: TierLifeRequest): Promise<TierLife>;
  /** What the stores of `stateDir` hold, once a life has ended there. */
  stores(scenario: Scenario, stateDir: string): Pick<RunOutcome, 'delivered' | 'writes' | 'refusals' | 'shop'>;
  /**
   * For an engine that keeps part of its durable state outside the folder (DBOS's rows in a
   * database server), named by a file in the folder: how to digest that part and how to copy it.
   */
  outside?: OutsideState;
}

export interface OutsideState {
  /** The digest of a folder just prepared, which has nothing outside it yet. */
  readonly nothing: string;
  /** A canonical text of what the folder's state holds outside it (ids of its own renamed, times dropped). */
  digest(stateDir: string): Promise<string>;
  /** Makes `toDir`, a copy of `fromDir`'s files, a state of its own: names of its own, and a copy of what is outside. */
  copy(fromDir: string, toDir: string): Promise<void>;
  /** Removes what the copies of the session whose initial state is `initialDir` left outside (the session is closed). */
  release(initialDir: string): Promise<void>;
}

/** The same life, from the same state with the same picks, did not write the same events twice. */
export class LifeNotRepeatable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LifeNotRepeatable';
  }
}

class FolderState implements DurableState {
  constructor(
    readonly digest: string,
    readonly dir: string,
    readonly space: StateSpace,
  ) {}
}

/** The states of one session's scenario, each kept once in a folder of its own. */
class StateSpace {
  private readonly held: { dir: string; release(): void };
  private readonly byDigest = new Map<string, FolderState>();
  /** Digests of the folders' files already read, by their bytes (folderBytesKey). */
  private readonly digestByBytes = new Map<string, string>();
  readonly initial: FolderState;
  /** The exploration's warm processes (none when the tier is run cold). */
  readonly warm: WarmPool | undefined;

  constructor(
    private readonly tier: ProcessTier,
    scenario: Scenario,
    warm: boolean,
  ) {
    requirePackages(tier.needs);
    this.warm = warm ? new WarmPool(1) : undefined;
    this.held = heldTempDir(`killpoint-states-${tier.name.replaceAll('/', '-')}-`);
    const dir = join(this.held.dir, 's0');
    tier.prepare(scenario, dir);
    this.initial = this.keepDigest(dir, this.folderDigest(dir, tier.outside?.nothing ?? ''));
  }

  private folderDigest(dir: string, outside: string, bytes = folderBytesKey(dir)): string {
    let files = this.digestByBytes.get(bytes);
    if (files === undefined) {
      files = digestStateFolder(dir, this.tier.files, this.tier.canonical);
      this.digestByBytes.set(bytes, files);
    }
    return this.tier.outside === undefined ? files : `${files}|${outside}`;
  }

  /**
   * The state in `dir`: the kept one of the same digest, or a new one, the folder moved into the
   * space (a folder not moved is left where it is, for its owner to remove). `bytesKey`: the key of
   * its bytes, when whoever wrote the folder knows it (folderBytesKey reads them otherwise).
   */
  async keep(dir: string, bytesKey?: string): Promise<FolderState> {
    return this.keepDigest(dir, this.folderDigest(dir, this.tier.outside === undefined ? '' : await this.tier.outside.digest(dir), bytesKey));
  }

  private keepDigest(dir: string, digest: string): FolderState {
    const known = this.byDigest.get(digest);
    if (known !== undefined) return known;
    const kept = join(this.held.dir, `s${this.byDigest.size}`);
    if (kept !== dir) renameSync(dir, kept);
    const state = new FolderState(digest, kept, this);
    this.byDigest.set(digest, state);
    return state;
  }

  /**
   * Runs `work` in a fresh folder inside the space's own (its lives' folders, their copies): gone
   * when it is done, and with the space if killpoint dies first (the space's folder is watched for
   * that: one watched folder per session, rather than one per life).
   */
  async inFolder<T>(prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
    const dir = mkdtempSync(join(this.held.dir, prefix));
    try {
      return await work(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async release(): Promise<void> {
    try {
      await this.warm?.drain();
      await this.tier.outside?.release(this.initial.dir);
    } finally {
      this.held.release();
    }
  }
}

/**
 * Keeps a life's copies of its state (request.cutInto) in the space as the states after its
 * events, one after another in the order they were written (so states are numbered as they would
 * be all kept at its end), as soon as each is written (request.onCut): the digest of one copy is
 * read while the life goes on to the next. A copy whose keeping fails fails the life's answer.
 */
class CutKeeper {
  private readonly stateAfter = new Map<number, FolderState>();
  private keeping: Promise<void> = Promise.resolve();
  private failed: { error: unknown } | null = null;

  constructor(
    private readonly space: StateSpace,
    readonly dir: string,
  ) {}

  readonly onCut = (copy: LifeCut): void => {
    this.keeping = this.keeping.then(async () => {
      if (this.failed !== null || this.stateAfter.has(copy.k)) return;
      try {
        this.stateAfter.set(copy.k, 'sameAs' in copy ? this.stateAfter.get(copy.sameAs)! : await this.space.keep(copy.dir, copy.bytesKey));
      } catch (error) {
        this.failed = { error };
      }
    });
  };

  /** Every copy `life` answered with, kept (those not heard of yet kept now), into `cuts` where it has none for that event. */
  async into(life: TierLife, cuts: Map<number, { state: FolderState; picksTaken: number }>): Promise<void> {
    for (const copy of life.cuts ?? []) this.onCut(copy);
    await this.keeping;
    if (this.failed !== null) throw this.failed.error;
    for (const copy of life.cuts ?? []) if (!cuts.has(copy.k)) cuts.set(copy.k, { state: this.stateAfter.get(copy.k)!, picksTaken: copy.picksTaken });
  }

  /** Once every copy heard of so far is kept (or its keeping failed). */
  settled(): Promise<void> {
    return this.keeping;
  }
}

/** Where a life's state copies go while it runs: a folder per life, in the space's. */
const CUTS_PREFIX = 'cuts-';

/** What the kills of a life left, by k. */
const cutsOf = new WeakMap<LifeRun, Map<number, { state: FolderState; picksTaken: number }>>();

/** Set to 1 to keep the children of every process engine's exploration warm (see ProcessLivesOptions.warm). */
export const WARM_CHILDREN_VARIABLE = 'KILLPOINT_WARM_CHILDREN';

export interface ProcessLivesOptions {
  /**
   * Lives run in processes started ahead of them (src/harness/process/warm-pool.ts). Default: only when
   * KILLPOINT_WARM_CHILDREN=1, since on a machine whose cores are all busy running lives a process
   * started ahead only competes with them (the bench, `npm run real`, measures both in one run).
   */
  warm?: boolean;
  /** Sees each exploration's pool figures when it ends (the bench prints them). */
  onWarmFigures?: (figures: WarmPoolFigures) => void;
}

/** The lives of one session of a process engine: closing removes its state folders and what they keep outside. */
export interface ProcessSessionLives extends SessionLives {
  close(): Promise<void>;
}

/** The lives of a process engine's sessions: one set per session, on the session's scenario, limited by the session's times. */
export type ProcessLivesOf = (scenario: Scenario, times?: LifeTimes) => ProcessSessionLives;

export function processLives(tier: ProcessTier, options: ProcessLivesOptions = {}): ProcessLivesOf {
  return (scenario, times = new LifeTimes()) => sessionLives(tier, scenario, options, times);
}

function sessionLives(tier: ProcessTier, scenario: Scenario, options: ProcessLivesOptions, times: LifeTimes): ProcessSessionLives {
  // Made when first asked for: a session that only runs whole schedules keeps no state.
  let space: StateSpace | null = null;
  let closed = false;
  const spaceOf = (): StateSpace => {
    if (closed) throw new Error(`${tier.name} ${scenario.id}: the session is closed`);
    space ??= new StateSpace(tier, scenario, options.warm ?? process.env[WARM_CHILDREN_VARIABLE] === '1');
    return space;
  };
  const stateOf = (start: LifeStart): FolderState => {
    const state = start.state;
    if (!(state instanceof FolderState) || state.space !== space || closed) throw new Error(`${tier.name} ${scenario.id}: a life can only start from a state of this session`);
    return state;
  };
  /** Runs a life in a copy of the state, in a folder of its own inside the space's (a state it leaves that is kept is moved there, not copied). */
  const lifeFrom = <T>(start: LifeStart, killAfter: number | null, then: (life: TierLife, stateDir: string, runDir: string) => T | Promise<T>, copies?: CutKeeper): Promise<T> => {
    // As no child is started after Ctrl-C (processes.ts), no life in process is: the search stops at once.
    if (wasInterrupted()) return Promise.reject(new Interrupted(`not starting ${tier.name} ${scenario.id} life ${start.lifeIndex}`));
    const from = stateOf(start);
    return from.space.inFolder('life-', async (runDir) => {
      const stateDir = join(runDir, 'state');
      copyFolder(from.dir, stateDir);
      await tier.outside?.copy(from.dir, stateDir);
      const life = await tier.life(scenario, { runDir, stateDir, lifeIndex: start.lifeIndex, killAfter, picks: start.picks, timeoutMs: times.limitMs(), ...(from.space.warm === undefined ? {} : { warm: from.space.warm }), ...(copies === undefined ? {} : { cutInto: copies.dir, onCut: copies.onCut }) });
      return then(life, stateDir, runDir);
    });
  };
  /**
   * Runs `job` with a keeper of a life's copies (request.cutInto), in a folder of the space of
   * `start`: the copies are kept there as they are written, and whatever `job` did, their keeping
   * ends before the folder goes.
   */
  const withCopies = <T>(start: LifeStart, job: (copies: CutKeeper) => Promise<T>): Promise<T> => {
    const space = stateOf(start).space;
    return space.inFolder(CUTS_PREFIX, async (copiesDir) => {
      const copies = new CutKeeper(space, copiesDir);
      try {
        return await job(copies);
      } finally {
        await copies.settled();
      }
    });
  };
  /**
   * Every kill point of `run` from one repeat of it (a tier that cutsInOneLife): the state after
   * each event is copied aside as it happens, and the repeat must write the same events and take
   * the same picks as `run`, or nothing it left is used.
   */
  const cutFromOneRepeat = (start: LifeStart, run: LifeRun, cuts: Map<number, { state: FolderState; picksTaken: number }>): Promise<void> =>
    withCopies(start, async (copies) => {
      const repeat = await lifeFrom(
        start,
        null,
        (life) => {
          mustRepeatWhole(tier, scenario, start, run, life);
          return life;
        },
        copies,
      );
      await copies.into(repeat, cuts);
    });
  /**
   * The first life of a run (from the scenario's fresh state) is always cut, so a tier that
   * cutsInOneLife copies its state as it runs: its kill points' recoveries need not wait for a
   * repeat. It must still repeat, or its copies are not what a kill there leaves: its repeat runs
   * beside the recoveries, and a repeat that differs fails the session when it closes (before
   * anything it explored is reported).
   */
  const cutAsItRan = new WeakSet<LifeRun>();
  const repeats: Promise<void>[] = [];
  let repeatFailed: { error: unknown } | null = null;
  const repeatBeside = (start: LifeStart, run: LifeRun): void => {
    repeats.push(
      lifeFrom(start, null, (life) => mustRepeatWhole(tier, scenario, start, run, life)).then(
        () => undefined,
        (error: unknown) => {
          repeatFailed ??= { error };
        },
      ),
    );
  };

  return {
    initial: () => spaceOf().initial,
    key: (start) => (tier.readsLifeIndex ? `${start.state.digest}|life ${start.lifeIndex}` : start.state.digest),
    runLife: (start) => {
      const runOf = (life: TierLife, stateDir: string): LifeRun => {
        const cuts = new Map<number, { state: FolderState; picksTaken: number }>();
        const run: LifeRun = {
          record: life.record,
          conversation: life.conversation,
          picks: life.picks,
          widths: life.widths,
          after: (k) => {
            if (k < 0) return { state: start.state, picksTaken: 0 };
            const cut = cuts.get(k);
            if (cut === undefined) throw new Error(`${tier.name} ${scenario.id} life ${start.lifeIndex}: no child has been killed after event ${k} yet (cutEvery first)`);
            return cut;
          },
          stores: tier.stores(scenario, stateDir),
        };
        cutsOf.set(run, cuts);
        return run;
      };
      // The first life from the fresh state is a run never killed: it sets the time limit of the session's other lives (life-time-limit.ts).
      const neverKilled = start.lifeIndex === 0 && start.state === space?.initial;
      const timed = (life: () => Promise<LifeRun>): Promise<LifeRun> => (neverKilled ? times.timed(life) : life());
      if (!tier.cutsInOneLife || start.lifeIndex !== 0) return timed(() => lifeFrom(start, null, runOf));
      return timed(() => withCopies(start, (copies) =>
        lifeFrom(
          start,
          null,
          async (life, stateDir) => {
            const run = runOf(life, stateDir);
            await copies.into(life, cutsOf.get(run)!);
            cutAsItRan.add(run);
            return run;
          },
          copies,
        ),
      ));
    },
    cutEvery: async (start, run, concurrency) => {
      const cuts = cutsOf.get(run);
      if (cuts === undefined) throw new Error(`${tier.name} ${scenario.id}: cutEvery of a life this tier did not run`);
      if (cutAsItRan.has(run)) return repeatBeside(start, run);
      if (tier.cutsInOneLife) return cutFromOneRepeat(start, run, cuts);
      const events = run.record.events;
      const from = stateOf(start).space;
      from.warm?.atLeast(concurrency);
      await inPool(events.map((_, k) => k), concurrency, async (k) => {
        if (cuts.has(k)) return;
        const cut = await lifeFrom(start, k, async (life, stateDir) => {
          mustRepeat(tier, scenario, start, run, k, life);
          return { state: await from.keep(stateDir), picksTaken: life.picks.length };
        });
        cuts.set(k, cut);
      });
    },
    ...(tier.cutsInOneLife ? { cutsInOneLife: true } : {}),
    close: async () => {
      // The repeats beside the recoveries run from the space's states: they end before it goes.
      await Promise.all(repeats);
      closed = true;
      const kept = space;
      space = null;
      if (kept !== null) {
        await kept.release();
        if (kept.warm !== undefined) options.onWarmFigures?.(kept.warm.figures);
      }
      if (repeatFailed !== null) throw repeatFailed.error;
    },
  };
}

/**
 * A session of a process engine: whole runs by `run` (the engine's run of a schedule, on this
 * scenario), lives by `livesOf` when the engine runs them one at a time. Both are handed the
 * session's LifeTimes: its runs never killed set the time limit of its other lives (pass them to
 * runWholeInProcesses). It is held open in processes.ts until closed, so an interrupted parent
 * closes it too; closing twice is closing once.
 */
export function processSession(scenario: Scenario, run: (schedule: Schedule, times: LifeTimes) => Promise<RunOutcome>, livesOf?: ProcessLivesOf): Session {
  const times = new LifeTimes();
  const lives = livesOf?.(scenario, times);
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => (closing ??= (lives?.close() ?? Promise.resolve()).finally(() => held.release()));
  const held = heldSession(close);
  return {
    scenario,
    run: (schedule) => run(schedule, times),
    ...(lives === undefined ? {} : { lives: { initial: lives.initial, key: lives.key, runLife: lives.runLife, cutEvery: lives.cutEvery, ...(lives.cutsInOneLife ? { cutsInOneLife: true } : {}) } }),
    close,
  };
}

/** A repeat of a life, from the same state with the same picks, must end as it did, with the same events and picks. */
function mustRepeatWhole(tier: ProcessTier, scenario: Scenario, start: LifeStart, run: LifeRun, life: TierLife): void {
  const what = `${tier.name} ${scenario.id} life ${start.lifeIndex}`;
  const events = (r: LifeRecord) => r.events.map((e) => JSON.stringify(e));
  const [a, b] = [events(run.record), events(life.record)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) throw new LifeNotRepeatable(`${what}: from the same state with the same picks, event ${i} was ${a[i] ?? 'missing'} in the life run to its end and ${b[i] ?? 'missing'} in its repeat`);
  }
  if (life.record.end !== run.record.end) throw new LifeNotRepeatable(`${what}: the life ended ${run.record.end}, its repeat from the same state ${life.record.end}`);
  if (JSON.stringify(life.picks) !== JSON.stringify(run.picks)) throw new LifeNotRepeatable(`${what}: its repeat took interleaving picks ${JSON.stringify(life.picks)} where the life run to its end took ${JSON.stringify(run.picks)}`);
}

/** A child killed after event k must have written the first k + 1 events of the life run to its end, and taken its picks. */
function mustRepeat(tier: ProcessTier, scenario: Scenario, start: LifeStart, run: LifeRun, k: number, life: TierLife): void {
  const what = `${tier.name} ${scenario.id} life ${start.lifeIndex}`;
  if (life.record.end !== 'killed') throw new LifeNotRepeatable(`${what}: the child to be killed after event ${k} ended ${life.record.end} after ${life.record.events.length} events, though the same life run to its end wrote ${run.record.events.length}`);
  const expected = run.record.events.slice(0, k + 1);
  for (let i = 0; i <= k; i++) {
    const a = JSON.stringify(expected[i]);
    const b = JSON.stringify(life.record.events[i]);
    if (a !== b) throw new LifeNotRepeatable(`${what}: from the same state with the same picks, event ${i} was ${a} in the life run to its end and ${b} in the child killed after event ${k}`);
  }
  for (let i = 0; i < life.picks.length; i++) {
    if (life.picks[i] !== run.picks[i]) throw new LifeNotRepeatable(`${what}: the child killed after event ${k} took interleaving pick ${life.picks[i]} where the life run to its end took ${run.picks[i]}`);
  }
}
