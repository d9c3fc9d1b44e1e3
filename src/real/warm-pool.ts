// Children kept warm: a process of killpoint's own child is started before its life is known, loads
// everything it imports, then waits on its stdin for the life's variables (src/real/warm-start.ts).
// A life handed to it then pays only for the life: the start of node and the loading of the
// bundle (for LangGraph, a third of a second) overlap with other lives. Every life still runs in a
// process of its own, started fresh and never reused, and still dies by its own SIGKILL: the pool
// changes when a process starts, not what it is.
//
// A pool belongs to one exploration (src/real/process-lives.ts) and is drained when it ends: the
// spares no life was handed are killed and reaped.

import { announceChild, startChild, wasInterrupted, Interrupted, type ChildExit, type StartedChild } from './processes.js';
import { WARM_VARIABLE } from './warm-start.js';

export interface WarmPoolFigures {
  /** Processes started, spares among them. */
  started: number;
  /** Lives handed to a process already started (the others waited for theirs to start). */
  handedWarm: number;
  /** Spares never given a life: killed when the pool was drained, or found dead while they waited. */
  unused: number;
}

export class WarmPool {
  private readonly idle = new Map<string, StartedChild[]>();
  readonly figures: WarmPoolFigures = { started: 0, handedWarm: 0, unused: 0 };

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
    if (wasInterrupted()) throw new Interrupted(`not starting ${bundle}`);
    const idle = this.idleOf(bundle);
    // A spare that died while it waited was never given a life: its end says nothing about one.
    let child = idle.shift();
    while (child !== undefined && child.ended) {
      this.figures.unused++;
      child = idle.shift();
    }
    if (child === undefined) child = this.start(bundle);
    else this.figures.handedWarm++;
    this.fill(bundle);
    announceChild(child.pid);
    child.stdin?.end(`${JSON.stringify(variables)}\n`);
    return child.awaitEnd(timeoutMs);
  }

  /** Kills the spares no life was handed, and waits until they are reaped. */
  async drain(): Promise<void> {
    const spares = [...this.idle.values()].flat();
    this.idle.clear();
    this.figures.unused += spares.length;
    for (const child of spares) child.kill();
    await Promise.allSettled(spares.map((child) => child.awaitEnd()));
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
