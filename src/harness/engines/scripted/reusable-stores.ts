// Fast in-memory durable stores for the simulated tier, with the same semantics as memoryStores:
// creating a SQLite shop (schema, seed rows, prepared statements) costs ~300 us, far more than a
// whole kill-and-resume run. So one seeded shop per scenario's rows is kept open and every run
// happens inside an outer transaction that is rolled back when the run ends: the next run starts
// from exactly the seeded rows (rowids included, as nothing is AUTOINCREMENT). Each tool call is
// still its own transaction (better-sqlite3 nests it as a savepoint), so a kill still lands between
// committed calls. Step records live in a Map that refuses a second record of a step, as the
// SQLite primary key does. After a run, the checker reads the tables the run did not change from
// what the shop noted of the seeded rows (see ReadCachingShop in shop-read-cache.ts).

import type { Statement } from 'better-sqlite3';
import { Shop } from '../../../model/shop.js';
import { ReadCachingShop } from './shop-read-cache.js';
import type { ShopRows } from '../../../model/scenario.js';
import { MemoryJournal, MemoryOutbox, type DurableStores, type JournalWriteMode, type WorkflowStore } from '../../../model/stores.js';

/** Seeded shops kept open at once; the least recently used one beyond this is closed. */
const SHOPS_KEPT = 16;

export class MemoryWorkflowStore implements WorkflowStore {
  /** Outputs by workflow id, then by step number. */
  private readonly outputs = new Map<string, Map<number, string>>();

  recorded(workflowId: string, step: number): string | undefined {
    return this.outputs.get(workflowId)?.get(step);
  }

  record(workflowId: string, step: number, output: string): void {
    let steps = this.outputs.get(workflowId);
    if (steps === undefined) {
      steps = new Map();
      this.outputs.set(workflowId, steps);
    }
    if (steps.has(step)) throw new Error(`workflow ${workflowId}: step ${step} is already recorded`);
    steps.set(step, output);
  }
}

interface KeptShop {
  shop: ReadCachingShop;
  busy: boolean;
  /** BEGIN and ROLLBACK, prepared once. */
  begin: Statement;
  rollback: Statement;
}

const shops = new Map<ShopRows, KeptShop>();

export interface ReusableStores {
  /** The shop is a real Shop (tests look inside it); the other stores start empty. */
  stores: DurableStores & { shop: Shop; journal: MemoryJournal; workflow: MemoryWorkflowStore; outbox: MemoryOutbox };
  /** Undoes everything the run did to the shop and makes it available again. */
  release(): void;
}

export function reusableMemoryStores(rows: ShopRows, journalMode: JournalWriteMode = 'rename'): ReusableStores {
  let entry = shops.get(rows);
  if (entry === undefined || entry.busy) {
    // A run already holds this shop (only a nested simulate could): give this one its own.
    if (entry?.busy) return freshStores(rows, journalMode);
    const shop = ReadCachingShop.seeded(rows); // notes the seeded rows, which every run starts from
    entry = { shop, busy: false, begin: shop.db.prepare('BEGIN'), rollback: shop.db.prepare('ROLLBACK') };
    shops.set(rows, entry);
    if (shops.size > SHOPS_KEPT) {
      const [oldest, old] = shops.entries().next().value!;
      if (!old.busy) {
        old.shop.close();
        shops.delete(oldest);
      }
    }
  } else {
    shops.delete(rows); // re-insert: the Map's order is the use order
    shops.set(rows, entry);
  }
  const held = entry;
  held.busy = true;
  held.begin.run();
  held.shop.restored(); // the last run was rolled back: the rows are the seeded ones again
  return {
    stores: { shop: held.shop, journal: new MemoryJournal(journalMode), workflow: new MemoryWorkflowStore(), outbox: new MemoryOutbox() },
    release() {
      held.rollback.run();
      held.busy = false;
    },
  };
}

function freshStores(rows: ShopRows, journalMode: JournalWriteMode): ReusableStores {
  const shop = Shop.create(rows);
  return {
    stores: { shop, journal: new MemoryJournal(journalMode), workflow: new MemoryWorkflowStore(), outbox: new MemoryOutbox() },
    release: () => shop.close(),
  };
}
