// Who owns what a killpoint process starts: its pid with the time it started (a pid alone may be
// given to another process once this one is gone). Temp folders carry it in their names, so that a
// later killpoint process can tell those whose owner is gone; children carry it, with a number of
// their own, in their environment (TREE_VARIABLE), so that whatever they start can be found.

import { randomBytes } from 'node:crypto';
import { isRunning, startTicksOf } from './process-tree.js';

/** Set in the environment of every child: the owner, this module's instance and the child's number. */
export const TREE_VARIABLE = 'KILLPOINT_PROCESS_TREE';

const OWNER_PID = process.pid;
const OWNER_START_TICKS = startTicksOf(process.pid) ?? '0';

/**
 * What every child's tree id starts with. The instance tells apart the copies of this module that
 * one process may load (a worker thread each), which start and end children on their own.
 */
export const TREE_PREFIX = `${OWNER_PID}.${OWNER_START_TICKS}.${randomBytes(4).toString('hex')}.`;

/** The owner as a temp folder's name carries it. */
export const OWNER_TAG = `pid${OWNER_PID}.${OWNER_START_TICKS}`;

/** A folder name made by ownedTempDir: the owner's tag, then mkdtemp's six characters. */
const OWNED_NAME = /pid(\d+)\.(\d+)-[A-Za-z0-9]{6}$/;

/** Whether the temp folder named `name` belongs to a killpoint process that has ended (false when it names no owner). */
export function ownerHasEnded(name: string): boolean {
  const owner = OWNED_NAME.exec(name);
  if (owner === null) return false;
  return !isRunning(Number(owner[1]), owner[2]!);
}
