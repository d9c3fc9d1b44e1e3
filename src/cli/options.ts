// Option values shared by the commands, read strictly: a value that is not what the option
// expects is a usage error naming the option (exit 2), never a silent default.

import { parseKillPointSpec, type KillPointSpec } from '../check/kill-points.js';
import { UsageError } from './usage-error.js';

/** Kill points separated by commas: indices (integers >= -1) or identities such as shop-commit[call_refund]. */
export function killPointList(value: string | undefined, option: string): KillPointSpec[] {
  if (value === undefined) throw new UsageError(`${option}: expected kill points separated by commas`);
  const specs = value.split(',').map(parseKillPointSpec);
  if (specs.some((k) => k === null)) throw new UsageError(`${option}: expected kill points separated by commas, each an integer >= -1 or an event identity such as shop-commit[call_refund], got "${value}"`);
  return specs as KillPointSpec[];
}

/** How many kills a schedule explores: 1, or 2 (the second during the recovery). */
export function killDepth(value: string | undefined, option: string): 1 | 2 {
  if (value !== '1' && value !== '2') throw new UsageError(`${option}: expected 1 or 2, got ${value === undefined ? 'nothing' : `"${value}"`}`);
  return Number(value) as 1 | 2;
}
