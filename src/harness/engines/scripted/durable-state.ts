// What a scripted life can read back after a kill, made explicit: the shop (as the write calls it
// was given, in order: the shop is deterministic, so the same calls from the same starting rows
// leave the same rows, row numbers and logs), the journal's saved text, the workflow's step
// records and the answers delivered. A state is an immutable value; its digest names its contents
// exactly (each part is interned: equal contents, equal number), so two kill points that leave the
// same digest leave the same stores for any life started from them.
//
// Not part of it, because no later life can read it: a journal's temp text not yet renamed (the
// next life's first journal operation is always a new write, and a file journal deletes a stale
// temp file), the conversation in memory, the shop's read cache (it answers exactly what a query
// would).

import { canonicalJson } from '../../../model/canonical-json.js';
import { isWriteTool, type ToolName } from '../../../model/tools.js';
import type { DurableState } from '../../engine.js';
import type { DurableStores, JournalStore, Outbox, ShopStore, WorkflowStore } from '../../../model/stores.js';

/** A write call the shop was given (committed or refused: both leave rows in its logs). */
interface ShopWrite {
  tool: ToolName;
  args: Record<string, unknown>;
  key: string | null;
}

/** A list shared by every state that extends it: each state adds one item at its end. */
interface Chain<T> {
  readonly parent: Chain<T> | null;
  readonly item: T;
}

function chainItems<T>(chain: Chain<T> | null): T[] {
  const items: T[] = [];
  for (let c = chain; c !== null; c = c.parent) items.push(c.item);
  return items.reverse();
}

export interface StepRecord {
  workflowId: string;
  step: number;
  output: string;
}

function stepOrder(a: StepRecord, b: StepRecord): number {
  return a.workflowId < b.workflowId ? -1 : a.workflowId > b.workflowId ? 1 : a.step - b.step;
}

/** The step records, sorted, each link with the number of the set up to it. */
interface StepChain {
  readonly parent: StepChain | null;
  readonly item: StepRecord;
  readonly id: number;
}

/** Numbers contents: equal contents get one number (exact, no hash to collide). */
class Interner {
  private readonly ids = new Map<string, number>();
  id(content: string): number {
    let id = this.ids.get(content);
    if (id === undefined) {
      id = this.ids.size + 1;
      this.ids.set(content, id);
    }
    return id;
  }
}

/** The contents numbers of one scenario's states (kept per scenario and strategy by the caller). */
export class StateSpace {
  private readonly shopIds = new Interner();
  /** Journal texts are numbered only when a digest asks (most states' digests are never asked for). */
  readonly journalIds = new Interner();
  private readonly workflowIds = new Interner();
  private readonly outboxIds = new Interner();
  readonly initial: ScriptedState = new ScriptedState(this, null, 0, null, null, 0, null, 0);

  shopAfter(state: ScriptedState, write: ShopWrite): ScriptedState {
    const shopId = this.shopIds.id(`${state.shopId}\u0000${write.tool}\u0000${canonicalJson(write.args)}\u0000${write.key ?? '\u0001'}`);
    return state.with({ shop: { parent: state.shop, item: write }, shopId });
  }

  journalAfter(state: ScriptedState, text: string | null): ScriptedState {
    if (text === state.journal) return state;
    return state.with({ journal: text });
  }

  /**
   * Step records are a set (looked up by workflow and step): the order they were made in is not
   * read. So the chain is kept sorted, each link numbered by its parent's number and its record:
   * equal sets, equal numbers. A record after the last (steps mostly come in order) is one link;
   * one that overtook others (parallel steps) re-links those after it.
   */
  workflowAfter(state: ScriptedState, record: StepRecord): ScriptedState {
    const after: StepRecord[] = [];
    let chain = state.workflow;
    while (chain !== null && stepOrder(chain.item, record) > 0) {
      after.push(chain.item);
      chain = chain.parent;
    }
    let id = chain === null ? 0 : chain.id;
    for (const r of [record, ...after.reverse()]) {
      id = this.workflowIds.id(`${id}\u0000${r.workflowId}\u0000${r.step}\u0000${r.output}`);
      chain = { parent: chain, item: r, id };
    }
    return state.with({ workflow: chain, workflowId: id });
  }

  outboxAfter(state: ScriptedState, runId: string, text: string): ScriptedState {
    const outboxId = this.outboxIds.id(`${state.outboxId}\u0000${runId}\u0000${text}`);
    return state.with({ outbox: { parent: state.outbox, item: { runId, text } }, outboxId });
  }
}

export class ScriptedState implements DurableState {
  private digestText: string | null = null;

  constructor(
    private readonly space: StateSpace,
    readonly shop: Chain<ShopWrite> | null,
    readonly shopId: number,
    readonly journal: string | null,
    readonly workflow: StepChain | null,
    readonly workflowId: number,
    readonly outbox: Chain<{ runId: string; text: string }> | null,
    readonly outboxId: number,
  ) {}

  get digest(): string {
    if (this.digestText === null) {
      const journalId = this.journal === null ? 0 : this.space.journalIds.id(this.journal);
      this.digestText = `s${this.shopId}.j${journalId}.w${this.workflowId}.o${this.outboxId}`;
    }
    return this.digestText;
  }

  with(change: Partial<Pick<ScriptedState, 'shop' | 'shopId' | 'journal' | 'workflow' | 'workflowId' | 'outbox' | 'outboxId'>>): ScriptedState {
    const s = { ...this.parts(), ...change };
    return new ScriptedState(this.space, s.shop, s.shopId, s.journal, s.workflow, s.workflowId, s.outbox, s.outboxId);
  }

  private parts(): Pick<ScriptedState, 'shop' | 'shopId' | 'journal' | 'workflow' | 'workflowId' | 'outbox' | 'outboxId'> {
    return { shop: this.shop, shopId: this.shopId, journal: this.journal, workflow: this.workflow, workflowId: this.workflowId, outbox: this.outbox, outboxId: this.outboxId };
  }

  /** Puts this state into fresh stores (the shop at its starting rows, the rest empty). */
  restoreInto(stores: DurableStores & { journal: { restore(text: string | null): void } }): void {
    for (const w of chainItems(this.shop)) stores.shop.call(w.tool, w.args, w.key);
    stores.journal.restore(this.journal);
    for (let c = this.workflow; c !== null; c = c.parent) stores.workflow.record(c.item.workflowId, c.item.step, c.item.output);
    for (const a of chainItems(this.outbox)) stores.outbox.deliver(a.runId, a.text);
  }

  get stateSpace(): StateSpace {
    return this.space;
  }
}

/**
 * Stores that follow the durable state as a life changes them: `current` is what a kill right
 * now would leave. They pass every call to the stores they wrap.
 */
export class RecordingStores {
  current: ScriptedState;
  readonly stores: DurableStores;

  constructor(inner: DurableStores, start: ScriptedState) {
    this.current = start;
    const space = start.stateSpace;
    // Methods of object literals rather than closures per call: one set per life.
    const shop: ShopStore = {
      call: (tool, args, key = null) => {
        const result = inner.shop.call(tool, args, key);
        if (isWriteTool(tool)) this.current = space.shopAfter(this.current, { tool, args, key });
        return result;
      },
      writeLog: () => inner.shop.writeLog(),
      refusalLog: () => inner.shop.refusalLog(),
      snapshot: () => inner.shop.snapshot(),
      close: () => inner.shop.close(),
    };
    const journal: JournalStore = {
      location: inner.journal.location,
      load: () => inner.journal.load(),
      write: (text) => {
        inner.journal.write(text);
        this.current = space.journalAfter(this.current, inner.journal.load()); // torn, when written in place
      },
      commit: () => {
        inner.journal.commit();
        this.current = space.journalAfter(this.current, inner.journal.load());
      },
    };
    const workflow: WorkflowStore = {
      recorded: (workflowId, step) => inner.workflow.recorded(workflowId, step),
      record: (workflowId, step, output) => {
        inner.workflow.record(workflowId, step, output);
        this.current = space.workflowAfter(this.current, { workflowId, step, output });
      },
    };
    const outbox: Outbox = {
      delivered: (runId) => inner.outbox.delivered(runId),
      deliver: (runId, text) => {
        inner.outbox.deliver(runId, text);
        this.current = space.outboxAfter(this.current, runId, text);
      },
    };
    this.stores = { shop, journal, workflow, outbox };
  }
}
