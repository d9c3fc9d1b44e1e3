// Children kept warm: a process of killpoint's own child is started before its life is known, loads
// everything it imports, then waits on its stdin for the life's variables (src/harness/process/warm-start.ts).
// A life handed to it then pays only for the life: the start of node and the loading of the
// bundle (for LangGraph, a third of a second) overlap with other lives. Every life still runs in a
// process of its own, started fresh and never reused, and still dies by its own SIGKILL: the pool
// changes when a process starts, not what it is.
//
// A pool belongs to one exploration (src/harness/process/process-lives.ts) and is drained when it ends: the
// spares no life was handed are killed and reaped.

import { announceChild, startChild, wasInterrupted, Interrupted, type ChildExit, type StartedChild } from './processes.js';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ownedTempDir } from './owned-temp-dirs.js';
import { TAKEN_VARIABLE, WARM_VARIABLE } from './warm-start.js';

/** Processes handed one life in a row that end before they take it: more means they cannot start. */
const MAX_HANDINGS = 3;

export interface WarmPoolFigures {
  /** Processes started, spares among them. */
  started: number;
  /** Lives handed to a process already started (the others waited for theirs to start). */
  handedWarm: number;
  /** Spares no life ran in: killed when the pool was drained, found dead while they waited, or dead before they took the life handed to them. */
  unused: number;
}

export class WarmPool {
  private readonly idle = new Map<string, StartedChild[]>();
  readonly figures: WarmPoolFigures = { started: 0, handedWarm: 0, unused: 0 };
  private taken: { dir: string; release(): void } | null = null;
  private handings = 0;

  /** `spares`: processes kept started beside those running lives, per bundle. */
  constructor(private spares: number) {}

  /** At least this many spares from now on (an exploration learns its concurrency late). */
  atLeast(spares: number): void {
    this.spares = Math.max(this.spares, spares);
  }

  /**
   * Runs a life in a warm process of `bundle`: `variables` are what a cold child would find in its
   * environment beside the parent's. Its time limit starts now.
   */
  async run(bundle: string, variables: Record<string, string>, timeoutMs?: number): Promise<ChildExit> {
    for (let handed = 1; ; handed++) {
      if (wasInterrupted()) throw new Interrupted(`not starting ${bundle}`);
      const idle = this.idleOf(bundle);
      // A spare that died while it waited was never given a life: its end says nothing about one.
      let child = idle.shift();
      while (child !== undefined && child.ended) {
        this.figures.unused++;
        child = idle.shift();
      }
      const warm = child !== undefined;
      if (child === undefined) child = this.start(bundle);
      this.fill(bundle);
      announceChild(child.pid);
      const taken = join(this.takenFolder(), `taken-${this.handings++}`);
      child.stdin?.end(`${JSON.stringify({ ...variables, [TAKEN_VARIABLE]: taken })}\n`);
      const exit = await child.awaitEnd(timeoutMs);
      if (existsSync(taken)) {
        rmSync(taken);
        if (warm) this.figures.handedWarm++;
        return exit;
      }
      // It ended before it had its life (it may have died just after we looked): not the life's end.
      if (warm) this.figures.unused++;
      if (handed >= MAX_HANDINGS) {
        throw new Error(`${bundle}: ${MAX_HANDINGS} processes in a row ended before they took their life (exit ${exit.code ?? exit.signal})${exit.stderr ? `: ${exit.stderr.trim().slice(-400)}` : ''}`);
      }
    }
  }

  /** Where children say they took their life (one empty file each, removed once read). */
  private takenFolder(): string {
    this.taken ??= ownedTempDir('killpoint-warm-');
    return this.taken.dir;
  }

  /** Kills the spares no life was handed, and waits until they are reaped. */
  async drain(): Promise<void> {
    const spares = [...this.idle.values()].flat();
    this.idle.clear();
    this.figures.unused += spares.length;
    for (const child of spares) child.kill();
    await Promise.allSettled(spares.map((child) => child.awaitEnd()));
    this.taken?.release();
    this.taken = null;
  }

  private idleOf(bundle: string): StartedChild[] {
    let idle = this.idle.get(bundle);
    if (idle === undefined) this.idle.set(bundle, (idle = []));
    return idle;
  }

  private fill(bundle: string): void {
    const idle = this.idleOf(bundle);
    while (idle.length < this.spares && !wasInterrupted()) idle.push(this.start(bundle));
  }

  private start(bundle: string): StartedChild {
    this.figures.started++;
    return startChild(process.execPath, [bundle], { ...process.env, [WARM_VARIABLE]: '1' }, { stdin: 'pipe' });
  }
}
