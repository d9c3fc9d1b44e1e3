// Option values shared by the commands, read strictly: a value that is not what the option
// expects is a usage error naming the option (exit 2), never a silent default. Numbers are plain
// decimals: JavaScript's Number() would also take '0x10', ' 7' or '1e3'.

import { parseKillPointSpec, type KillPointSpec } from '../check/kill-points.js';
import { UsageError } from '../usage-error.js';

/** A whole decimal number (optionally negative), or NaN. */
export function decimalInt(text: string | undefined): number {
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : NaN;
}

/** A decimal number such as 0.13 or 40, or NaN. */
export function decimalNumber(text: string | undefined): number {
  return text !== undefined && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
}

/** Kill points separated by commas: indices (integers >= -1) or identities such as shop-commit[call_refund]. */
export function killPointList(value: string | undefined, option: string): KillPointSpec[] {
  if (value === undefined) throw new UsageError(`${option}: expected kill points separated by commas`);
  // No blank around an entry: ' 7' is a typo to report, not a 7.
  const specs = value.split(',').map((entry) => (entry.trim() === entry ? parseKillPointSpec(entry) : null));
  if (specs.some((k) => k === null)) throw new UsageError(`${option}: expected kill points separated by commas, each an integer >= -1 or an event identity such as shop-commit[call_refund], got "${value}"`);
  return specs as KillPointSpec[];
}

/** How many kills a schedule explores: 1, or 2 (the second during the recovery). */
export function killDepth(value: string | undefined, option: string): 1 | 2 {
  if (value !== '1' && value !== '2') throw new UsageError(`${option}: expected 1 or 2, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return Number(value) as 1 | 2;
}

/** Shard `index` of `count` (1-based), as `--shard 2/3` gives it. */
export interface Shard {
  index: number;
  count: number;
}

/** `--shard i/n`: the i-th of n shards, 1 <= i <= n, as vitest reads it. */
export function parseShard(value: string | undefined, option: string): Shard {
  const m = value === undefined ? null : /^(\d+)\/(\d+)$/.exec(value);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!(count >= 1 && index >= 1 && index <= count)) {
    throw new UsageError(`${option}: expected i/n with 1 <= i <= n, such as 1/3, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  }
  return { index, count };
}

/**
 * The units of work shard i of n takes, split as vitest --shard splits test files: the units in
 * their fixed order, cut into n runs of ceil(N/n), the i-th run for shard i (the last shards may
 * be short or empty). Every unit lands in exactly one shard, whatever machine runs it.
 */
export function shardOf<T>(units: readonly T[], shard: Shard | null): T[] {
  if (shard === null) return [...units];
  const size = Math.ceil(units.length / shard.count);
  return units.slice(size * (shard.index - 1), size * shard.index);
}
