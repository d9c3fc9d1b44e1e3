// The side effects a user's module reports (readEffects), checked record by record and turned into
// the writes every check compares: a record found more often than in the run never killed was done
// twice, less often lost, with other args a different write.

import { canonicalJson } from '../../model/canonical-json.js';
import type { CommittedWrite } from '../check/outcome.js';
import { UserModuleSetupError } from './setup-error.js';

/** One side effect as the module reports it. */
export interface EffectRecord {
  kind: string;
  target?: string;
  args?: unknown;
}

/** The records `readEffects` returned, or the first thing wrong with them, named. */
export function effectRecords(value: unknown, exportName: string): EffectRecord[] {
  const what = `${exportName}(ctx)`;
  if (!Array.isArray(value)) throw new UserModuleSetupError(`${what} returned ${describe(value)}: expected a list of records { kind, target?, args? }`);
  return value.map((record: unknown, i): EffectRecord => {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new UserModuleSetupError(`${what}[${i}] is ${describe(record)}: expected a record { kind, target?, args? }`);
    const r = record as Record<string, unknown>;
    if (typeof r.kind !== 'string' || r.kind === '') throw new UserModuleSetupError(`${what}[${i}].kind is ${describe(r.kind)}: expected the kind of effect, a non-empty string`);
    if (r.target !== undefined && typeof r.target !== 'string') throw new UserModuleSetupError(`${what}[${i}].target is ${describe(r.target)}: expected a string (what the effect was done to) or nothing`);
    let args: string | undefined;
    try {
      args = r.args === undefined ? undefined : canonicalJson(r.args);
    } catch (error) {
      throw new UserModuleSetupError(`${what}[${i}].args cannot be written as JSON (${(error as Error).message})`);
    }
    return { kind: r.kind, ...(r.target === undefined ? {} : { target: r.target }), ...(args === undefined ? {} : { args: JSON.parse(args) as unknown }) };
  });
}

/** The effects as the checks read writes: no key (the checks compare what was done, not how it was keyed). */
export function effectsAsWrites(effects: readonly EffectRecord[]): CommittedWrite[] {
  return effects.map((e) => ({ kind: e.kind, target: e.target ?? '', args: canonicalJson(e.args ?? null), key: null }));
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''} (not called?)`;
  if (typeof value === 'object') return `an object (${Object.keys(value).slice(0, 4).join(', ') || 'no fields'})`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return `${typeof value} ${text.slice(0, 40)}`;
}
