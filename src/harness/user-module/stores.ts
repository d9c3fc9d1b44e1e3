// What a life of a user's module that was not killed read back at its end, for the parent: the
// effects its module reports, its answer (a graph's last AI message, a workflow's result) and its
// state, kept in a file of the run's state folder that no life reads.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunOutcome } from '../check/outcome.js';
import { effectsAsWrites, type EffectRecord } from './effects.js';

export interface ModuleStores {
  effects: EffectRecord[];
  /** The final answer, or null when the run gives none. */
  answer: string | null;
  /** What else the run leaves to compare (a graph's state, messages aside), as canonical JSON; '' for nothing. */
  state: string;
}

const STORES_FILE = 'killpoint-stores.json';

export function writeModuleStores(stateDir: string, stores: ModuleStores): void {
  writeFileSync(join(stateDir, STORES_FILE), JSON.stringify(stores));
}

/** The stores as the checks read them; a last life that crashed read nothing back (its crash is the verdict). */
export function readModuleStores(stateDir: string, stateName: string): Pick<RunOutcome, 'delivered' | 'writes' | 'refusals' | 'shop'> {
  const file = join(stateDir, STORES_FILE);
  if (!existsSync(file)) return { delivered: [], writes: [], refusals: [], shop: {} };
  const stores = JSON.parse(readFileSync(file, 'utf8')) as ModuleStores;
  return { delivered: stores.answer === null ? [] : [stores.answer], writes: effectsAsWrites(stores.effects), refusals: [], shop: stores.state === '' ? {} : { [stateName]: [stores.state] } };
}
