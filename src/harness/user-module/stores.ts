// What a life of a user's module that was not killed read back at its end, for the parent: the
// effects its module reports, its answer (a graph's last AI message, a workflow's result) and its
// state, kept in a file of the run's state folder that no life reads.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunOutcome } from '../check/outcome.js';
import { canonicalJson } from '../../model/canonical-json.js';
import { effectRecords, effectsAsWrites, type EffectRecord } from './effects.js';
import { userCall } from './load.js';
import { SERVICE_LEDGER_FILE, ServiceLedger } from '../traffic/service-ledger.js';

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

/**
 * The stores as the checks read them: the writes the services killpoint played committed (its
 * service ledger: the world's, whatever the lives read back), then what the last life read back
 * (nothing, for a last life that crashed: its crash is the verdict).
 */
export function readModuleStores(stateDir: string, stateName: string): Pick<RunOutcome, 'delivered' | 'writes' | 'refusals' | 'shop'> {
  const ledgerFile = join(stateDir, SERVICE_LEDGER_FILE);
  const services = existsSync(ledgerFile) ? new ServiceLedger(ledgerFile) : null;
  const served = { writes: services?.committedWrites() ?? [], refusals: services?.refusedWrites() ?? [] };
  const file = join(stateDir, STORES_FILE);
  if (!existsSync(file)) return { delivered: [], ...served, shop: {} };
  const stores = JSON.parse(readFileSync(file, 'utf8')) as ModuleStores;
  return { delivered: stores.answer === null ? [] : [stores.answer], writes: [...served.writes, ...effectsAsWrites(stores.effects)], refusals: served.refusals, shop: stores.state === '' ? {} : { [stateName]: [stores.state] } };
}

export interface RunToItsOutput {
  stateDir: string;
  /** The module's export that reads the effects, called with the life's context, and its name for errors. */
  readEffects: () => unknown;
  effectsExport: string;
  /** The run to its output (a workflow's result, a handler's): its answer. */
  output: () => Promise<unknown>;
  /** Said once the output is recorded, before the effects are read (the engine's own event). */
  recorded?: () => void;
  /**
   * The run's output when it ended in an error it means to end in (a saga's TerminalError, after
   * its compensations), as the answer's text; undefined for an error that is a crash.
   */
  endedInError?: (error: unknown) => Promise<string | undefined> | string | undefined;
}

/**
 * Runs a user's module to its output and writes back what the run did: the effects its module
 * reports, and the output as the answer (a string as it is, anything else as canonical JSON). An
 * error the run means to end in is its output, named. A life that stops on any other error has
 * still done what it did: its effects are written before the error goes on, and the verdict reads them.
 */
export async function runAndReadBack(run: RunToItsOutput): Promise<void> {
  const readBack = async (output: unknown): Promise<void> =>
    writeModuleStores(run.stateDir, {
      effects: effectRecords(await userCall(run.readEffects, run.effectsExport), run.effectsExport),
      answer: output === undefined ? null : typeof output === 'string' ? output : canonicalJson(output),
      state: '',
    });
  let output: unknown;
  try {
    output = await run.output();
  } catch (error) {
    output = await run.endedInError?.(error);
    if (output === undefined) {
      await readBack(undefined).catch(() => undefined);
      throw error;
    }
  }
  run.recorded?.();
  await readBack(output);
}
