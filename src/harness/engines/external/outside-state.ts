// Files an agent behind the kill protocol wrote outside KILLPOINT_STATE_DIR. Every run killpoint
// makes starts from an empty state folder; a journal kept elsewhere (~/.agent/journal.json is the
// common form) is shared by all of them, so a later run resumes what an earlier one left. Two places
// are looked at: the state folder's parent, a temp folder of killpoint's own for each run (exact:
// anything there but the run's events and results is the agent's), and the user's home, where a
// snapshot of its top levels and their direct children (kind, size, time) is cheap to read.

import { lstatSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** A folder's entries at depth 1 and 2, each by path: its kind, and for a file its size and time. */
export type HomeSnapshot = Map<string, string>;

/**
 * How many entries a snapshot of the home folder reads at most. A home past it is not looked at (the
 * message then names no file there) rather than cost every session more than a moment: 1,673
 * entries took 180 to 240 ms on a 2-core machine at load 15, 54 took 2 to 3 ms.
 */
const MAX_HOME_ENTRIES = 5_000;

/** What killpoint itself writes beside the state folder in a run's folder (whole-run.ts, external.ts). */
const KILLPOINTS_OWN = /^(state|events-\d+\.jsonl|result-\d+\.json)$/;

/** The files and folders of the state folder's parent that killpoint did not put there, as `$KILLPOINT_STATE_DIR/../<name>`. */
export function filesBesideState(stateDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dirname(stateDir));
  } catch {
    return [];
  }
  return names.filter((n) => !KILLPOINTS_OWN.test(n)).sort().map((n) => `$KILLPOINT_STATE_DIR/../${n}`);
}

/** The home folder's top levels and their direct children; null when there is no home to look at or it is too big to read cheaply. */
export function snapshotHome(home: string = homedir()): HomeSnapshot | null {
  if (home === '' || home === '/') return null;
  const snapshot: HomeSnapshot = new Map();
  const top = entries(home);
  if (top === null) return null;
  for (const name of top) {
    const path = join(home, name);
    const kind = entryKind(path);
    if (kind === null) continue;
    snapshot.set(path, kind);
    if (kind !== 'dir' || isKillpointTemp(path)) continue;
    for (const child of entries(path) ?? []) {
      const childPath = join(path, child);
      const childKind = entryKind(childPath);
      if (childKind !== null && !isKillpointTemp(childPath)) snapshot.set(childPath, childKind);
      if (snapshot.size > MAX_HOME_ENTRIES) return null;
    }
  }
  return snapshot;
}

/**
 * The paths created or changed between two snapshots: files new or of another size or time, and
 * folders new with nothing named inside them. A folder's own time changes with whatever is done in
 * it (a cache rotated, a log added below), so a folder that was there is never named by itself.
 */
export function writtenBetween(before: HomeSnapshot, after: HomeSnapshot): string[] {
  const written = [...after].filter(([path, kind]) => (kind === 'dir' ? !before.has(path) : before.get(path) !== kind)).map(([path]) => path);
  return written.filter((path) => !written.some((other) => other.startsWith(`${path}/`))).sort();
}

function entries(dir: string): string[] | null {
  try {
    return readdirSync(dir);
  } catch {
    return null;
  }
}

/** 'dir' for a folder (not followed through a link), else its size and time of change. */
function entryKind(path: string): string | null {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() ? 'dir' : `${stat.size} ${stat.mtimeMs}`;
  } catch {
    return null;
  }
}

/** killpoint's own temp folders, which a home holding the temp folder (TMPDIR=~/tmp) would show. */
function isKillpointTemp(path: string): boolean {
  return dirname(path) === tmpdir() && basename(path).startsWith('killpoint-');
}
