// One life of a real engine run inside killpoint's own process, answering what a child process
// answers (process/process-life.ts) from the same engine code: its events, numbered as the kill
// protocol numbers them, the interleaving picks each event line would carry, how it ended, its
// conversation. The kill lands right after the kill point's event, as the child's sink sends
// SIGKILL right after writing it.
//
// What a SIGKILL leaves is what the files held at that instant, whatever the process would have
// done next. So a life runs in a private copy of the state folder, and at its kill point that
// copy is copied back, there and then (nothing else runs in between: it is one synchronous
// step): that is the state the next life starts from. The life itself cannot be stopped between
// two of its awaits, so it is cut off from its stores (fence.ts) and abandoned; whatever it still
// does (a node of a user's graph already running when a checkpoint's save was the kill point)
// lands in its private copy, which nothing reads.
//
// Everything a child's life hands its parent crosses a file as JSON; here it is copied through
// JSON too, so that the two tiers hand the explorer the same values.

import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Conversation } from '../../model/conversation.js';
import type { LifeRecord } from '../check/outcome.js';
import type { RunEvent } from '../check/events.js';
import { SystemInputError } from '../engine.js';
import type { EmitEvent, LifeReporting } from '../process/child-main.js';
import type { LifeCut, TierLife } from '../process/process-lives.js';
import { LifeTimedOut } from '../process/processes.js';
import { EXIT_FAILED, errorLine, lifeEnd, type LifeExit } from '../process/protocol.js';
import { LifeFence, LifeKilled } from './fence.js';
import { bytesKeyOf, copyFolder, readFolder, sameFiles, whileFilesSettle, writeFolder, type FolderFiles } from '../process/folder-files.js';
import { lifeAbandoned } from './abandoned-lives.js';
import { oneAtATime } from './one-at-a-time.js';

export interface InProcessLife {
  /** The state folder the life starts from, and where what it leaves is found once it ends or is killed. */
  stateDir: string;
  /** The engine's name in a crashed life's error ("the LangGraph life crashed"), as its child says it. */
  engine: string;
  /** Names the life in errors. */
  what: string;
  killAfter: number | null;
  /** How long the life may take before it is called hung (its process would be killed at this limit). */
  timeoutMs: number;
  /** An error the life ends with that means its durable state is unusable: bad input, not a verdict. */
  isBadInput?: (error: unknown) => boolean;
  /** What that error says of the life, after its name (as the engine's child says it). */
  badInputPhrase?: string;
  /** The engine's life, in `workDir` (its private copy of the state folder): it reports through `reporting` and opens its stores through `fence`. */
  run(reporting: LifeReporting, fence: LifeFence, workDir: string): Promise<Conversation | null>;
  /**
   * For the differential's own test only: a kill that cuts nothing off. The life is called killed
   * at its kill point but runs on to its end, its stores open (what a fence that forgot its job
   * would do); the differential against SIGKILL must catch it.
   */
  brokenKill?: 'life-runs-on';
  /**
   * Right after each event k is recorded, synchronously, the life's private folder as it is at that
   * instant is copied into this folder as \`after-<k>\`: what a kill there would hand the next life
   * (process-lives.ts cuts a life's kill points from one repeat of it this way, instead of one
   * killed life each). The life answers with the copies (TierLife.cuts).
   */
  cutInto?: string;
  /**
   * For the tier's own test only: each copy is taken at the next event (or when the life ends),
   * holding what the life did after its event (the comparison must catch it).
   */
  brokenCopy?: 'one-event-late';
}

type Ending = { how: 'returned'; conversation: Conversation | null } | { how: 'threw'; error: unknown } | { how: 'killed' } | { how: 'timed out' };

/**
 * Runs the life in this process, after any other in-process life has ended. `onCut` hears of each
 * copy (cutInto) as soon as it is written, while the life goes on: its copies can be read while it
 * runs (process-lives.ts keeps them as it goes). The answer lists them all again.
 */
export function runInProcessLife(life: InProcessLife, onCut?: (cut: LifeCut) => void): Promise<TierLife> {
  return oneAtATime(() => runNow(life, onCut).finally(lifeAbandoned));
}

async function runNow(life: InProcessLife, onCut: ((cut: LifeCut) => void) | undefined): Promise<TierLife> {
  const fence = new LifeFence(life.what);
  const workDir = mkdtempSync(`${life.stateDir}.life-`);
  copyFolder(life.stateDir, workDir);
  let published = false;
  /** What the life left becomes the state folder's contents, once: at its kill point, or when it ends. */
  const publish = (): void => {
    if (published) return;
    published = true;
    whileFilesSettle(() => {
      rmSync(life.stateDir, { recursive: true, force: true });
      copyFolder(workDir, life.stateDir);
    });
  };
  const events: RunEvent[] = [];
  const picks: number[] = [];
  const widths: number[] = [];
  // Picks taken since the last event: a child writes them on its next event line, so picks taken
  // after a life's last event are never read back, here as there.
  let pendingPicks: number[] = [];
  let pendingWidths: number[] = [];
  let killedNow: () => void = () => undefined;
  const killed = new Promise<Ending>((resolve) => (killedNow = () => resolve({ how: 'killed' })));

  // The copy of each event (cutInto), or for brokenCopy the previous event's, taken a step late.
  // Most events write nothing (a chunk of a reply, a tool's start): the folder is read, and only a
  // folder whose bytes changed since the last copy is written out; an unchanged one names the
  // event whose copy it shares, so nothing is copied or digested twice.
  const cuts: LifeCut[] = [];
  let lastCopy: { k: number; files: FolderFiles } | null = null;
  const cut = (k: number, picksTaken: number): void => {
    const files = readFolder(workDir);
    let copy: LifeCut;
    if (lastCopy !== null && sameFiles(lastCopy.files, files)) copy = { k, picksTaken, sameAs: lastCopy.k };
    else {
      const dir = join(life.cutInto!, `after-${k}`);
      writeFolder(dir, files);
      lastCopy = { k, files };
      copy = { k, picksTaken, dir, bytesKey: bytesKeyOf(files) };
    }
    cuts.push(copy);
    onCut?.(copy);
  };
  let late: { index: number; picksTaken: number } | null = null;
  const copyAfter = (index: number, picksTaken: number): void => {
    if (life.cutInto === undefined) return;
    if (life.brokenCopy === undefined) return index < 0 ? undefined : cut(index, picksTaken);
    if (late !== null) cut(late.index, late.picksTaken);
    late = index < 0 ? null : { index, picksTaken };
  };

  let killedAt: number | null = null;
  // A copy of the life's folder that fails (a full disk) is killpoint's failure, not the life's:
  // the life is cut off there and the run stops with it, named, instead of the engine's code
  // meeting a file system error it never caused.
  let copyFailed: { after: number; error: unknown } | null = null;
  const copying = (after: number, copy: () => void): void => {
    try {
      copy();
    } catch (error) {
      copyFailed ??= { after, error };
      fence.kill();
      killedNow();
      throw new LifeKilled(life.what);
    }
  };
  const emit: EmitEvent = (event) => {
    fence.assertAlive();
    if (killedAt !== null) return; // brokenKill: the life runs on unheard
    const index = events.length;
    events.push(JSON.parse(JSON.stringify({ ...event, index })) as RunEvent);
    picks.push(...pendingPicks);
    widths.push(...pendingWidths);
    pendingPicks = [];
    pendingWidths = [];
    copying(index, () => copyAfter(index, picks.length));
    if (index === life.killAfter) {
      killedAt = index;
      if (life.brokenKill === 'life-runs-on') return;
      copying(index, publish);
      fence.kill();
      killedNow();
      throw new LifeKilled(life.what);
    }
  };
  const onPick = (pick: number, width: number): void => {
    if (fence.killed) return;
    pendingPicks.push(pick);
    pendingWidths.push(width);
  };

  if (life.killAfter === -1) {
    rmSync(workDir, { recursive: true, force: true });
    return { record: { events: [], end: 'killed', killedAfter: -1, error: null, errorKind: null }, conversation: null, picks: [], widths: [] };
  }

  let timer: NodeJS.Timeout | undefined;
  // real clock: a life that never ends (waiting on something its killed predecessor left) must be
  // stopped as its process would be at its time limit; the virtual clock does not run here.
  const timedOut = new Promise<Ending>((resolve) => (timer = setTimeout(() => resolve({ how: 'timed out' }), life.timeoutMs)));
  const running = (async (): Promise<Ending> => ({ how: 'returned', conversation: await life.run({ emit, onPick }, fence, workDir) }))().catch((error: unknown): Ending => ({ how: 'threw', error }));
  let ending: Ending;
  try {
    ending = await Promise.race([killed, running, timedOut]);
    if (killedAt !== null) ending = { how: 'killed' };
  } finally {
    clearTimeout(timer);
    if (!fence.killed) copyAfter(-1, 0);
    // The life is over either way: what it left is the state, whatever it left open is closed,
    // whatever it still runs is cut off. Its private folder goes once nothing holds it; an
    // abandoned life that still writes there gets an error nobody reads.
    if (copyFailed === null) publish();
    fence.kill();
    rmSync(workDir, { recursive: true, force: true });
  }
  // Set by the life's emit, which the compiler cannot see run.
  const failure = copyFailed as { after: number; error: unknown } | null;
  if (failure !== null) throw new SystemInputError(`${life.what}: killpoint could not copy the life's folder after event ${failure.after}: ${(failure.error as Error).message}`);
  if (ending.how === 'timed out') throw new LifeTimedOut(life.what, life.timeoutMs);
  if (ending.how === 'threw' && ending.error instanceof LifeKilled) throw new Error(`${life.what}: the life ran into its fence without being killed at its kill point`);
  if (ending.how === 'threw' && life.isBadInput?.(ending.error)) {
    throw new SystemInputError(`${life.what}: ${life.badInputPhrase ?? 'the life cannot run on its durable state'}: ${(ending.error as Error).message}`);
  }
  return { ...recordOf(life, ending, events), picks, widths, ...(life.cutInto === undefined ? {} : { cuts }) };
}

/** How the life ended, judged by the same rule as a child's exit (protocol.ts: lifeEnd). */
function recordOf(life: InProcessLife, ending: Exclude<Ending, { how: 'timed out' }>, events: RunEvent[]): { record: LifeRecord; conversation: Conversation | null } {
  const rejected = ending.how === 'threw' && (ending.error as Error | undefined)?.name === 'ConversationRejected';
  const stack = ending.how === 'threw' ? `${(ending.error as Error)?.stack ?? String(ending.error)}\n` : '';
  const exit: LifeExit = ending.how === 'killed' ? { code: null, signal: 'SIGKILL', stderr: '' } : ending.how === 'returned' ? { code: 0, signal: null, stderr: '' } : { code: rejected ? EXIT_FAILED : 1, signal: null, stderr: stack };
  const end = lifeEnd(exit, events.length, life.killAfter, life.what, 'verdict');
  const record: LifeRecord = { events, end: end === 'crashed' ? 'failed' : end, killedAfter: end === 'killed' ? life.killAfter : null, error: null, errorKind: null };
  if (end === 'crashed') {
    record.error = `the ${life.engine} life crashed (exit 1)${errorLine(stack)}`;
    record.errorKind = 'crashed';
  }
  if (end === 'failed' && ending.how === 'threw') {
    record.error = (ending.error as Error).message;
    record.errorKind = 'conversation-rejected';
  }
  const conversation = end === 'finished' && ending.how === 'returned' && ending.conversation !== null ? (JSON.parse(JSON.stringify(ending.conversation)) as Conversation) : null;
  return { record, conversation };
}
