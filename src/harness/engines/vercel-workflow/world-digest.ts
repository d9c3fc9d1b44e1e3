// What the local world's folder holds, as a life can read it back: every file under it (runs,
// steps, events, streams, locks), by its path and contents, with the values made of the clock or of
// random numbers rewritten. The world's ids (run, event, step, stream ids) are ULIDs: made of the
// time and randomness, compared by a life only with each other and sorted by time. Each is renamed
// by its rank of first appearance across the folder (files read in sorted path order, which is
// time order for the ids files are named by), and every timestamp is dropped. Two folders with one
// digest give any life started from them the same reads; a folder two lives left differently only
// gets a recovery of its own.
//
// A user's workflow keeps its steps' data in a folder beside the world (its ledger, say), where a
// step may write the world's ids (a key made of the run's id and the step's). That folder is
// digested after the world's, its ids renamed by the same ranks: a state that differs from another
// only by its ids being other ones, in the world and in the data alike, reads the same.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { filesUnder } from '../../process/folder-files.js';

/** A ULID (26 characters of Crockford's base 32), with or without the world's prefix (wrun_, evnt_, step_, ...). */
const ULID = /\b(?:[a-z]+_)?[0-9A-HJKMNP-TV-Z]{26}\b/g;
/** An ISO time, as the world writes createdAt, updatedAt, startedAt, completedAt. */
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;

/**
 * The canonical digest of a world folder ('' when there is none yet), and of each folder of
 * `besideDirs` that exists, one renaming of ids across them all.
 */
export function worldDigest(worldDir: string, besideDirs: readonly string[] = []): string {
  const dirs = [worldDir, ...besideDirs].filter((dir) => existsSync(dir));
  if (dirs.length === 0) return '';
  const ranks = new Map<string, number>();
  const canonical = (text: string): string =>
    text.replace(ISO_TIME, '').replace(ULID, (id) => {
      let rank = ranks.get(id);
      if (rank === undefined) {
        rank = ranks.size;
        ranks.set(id, rank);
      }
      return `id#${rank}`;
    });
  const hash = createHash('sha256');
  for (const dir of dirs) {
    // The world's own files are hashed as they always were; a folder beside it is named first.
    if (dir !== worldDir) hash.update(`\0folder ${basename(dir)}\0`);
    for (const file of filesUnder(dir)) hash.update(`\0${canonical(relative(dir, file))}\0`).update(canonical(readFileSync(file).toString('latin1')));
  }
  return hash.digest('hex');
}
