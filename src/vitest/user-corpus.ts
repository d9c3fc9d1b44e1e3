// A corpus of the user's own: the kill schedules that once broke their agent, one JSON file each,
// replayed before anything new (a bug found once is checked first, in milliseconds rather than
// after the whole search). A failure found by the search is added to it.
//
//   { "suite": "refund agent", "task": "dana", "kills": [4], "found": "done twice: refund ... (2026-12-01)" }
//   "interleaving": [1, 0] (optional: the picks of parallel calls, for a scenario under an engine)

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareCorpusFolder } from '../harness/search/corpus.js';

export interface UserCorpusEntry {
  file: string;
  suite: string;
  task: string;
  kills: number[];
  /** The interleaving picks of parallel calls (empty: the default order). */
  interleaving: number[];
  found: string;
}

export class UserCorpusError extends Error {
  constructor(file: string, field: string, expected: string) {
    super(`${file}: ${field}: expected ${expected}`);
    this.name = 'UserCorpusError';
  }
}

/** The entries of a suite, in file-name order; a folder that does not exist yet holds none. */
export function loadUserCorpus(dir: string, suite: string): UserCorpusEntry[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((name) => parseEntry(join(dir, name)))
    .filter((e) => e.suite === suite);
}

function parseEntry(file: string): UserCorpusEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserCorpusError(file, '(file)', `valid JSON (${(error as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new UserCorpusError(file, '(file)', 'a JSON object { suite, task, kills, found }');
  const r = raw as Record<string, unknown>;
  for (const field of ['suite', 'task'] as const) {
    if (typeof r[field] !== 'string' || r[field] === '') throw new UserCorpusError(file, field, 'a non-empty string');
  }
  const kills = r.kills;
  if (!Array.isArray(kills) || kills.length === 0 || !kills.every((k) => Number.isInteger(k) && (k as number) >= -1)) {
    throw new UserCorpusError(file, 'kills', 'a list of kill points, integers >= -1, one per life');
  }
  const interleaving = r.interleaving ?? [];
  if (!Array.isArray(interleaving) || !interleaving.every((p) => Number.isInteger(p) && (p as number) >= 0)) {
    throw new UserCorpusError(file, 'interleaving', 'a list of picks, integers >= 0 (or no field: the default order)');
  }
  return { file, suite: r.suite as string, task: r.task as string, kills: kills as number[], interleaving: interleaving as number[], found: typeof r.found === 'string' ? r.found : '' };
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'case';
}

/** Adds a failing schedule (once: the same suite, task and kills are not written twice). Returns the file. */
export function addToUserCorpus(dir: string, entry: Omit<UserCorpusEntry, 'file' | 'interleaving'> & { interleaving?: number[] }): string {
  const picks = entry.interleaving ?? [];
  const known = loadUserCorpus(dir, entry.suite).find((e) => e.task === entry.task && e.kills.join(',') === entry.kills.join(',') && e.interleaving.join(',') === picks.join(','));
  if (known !== undefined) return known.file;
  prepareCorpusFolder(dir, 'corpus');
  const order = picks.length > 0 ? `-picks-${picks.join('-')}` : '';
  const file = join(dir, `${slug(entry.suite)}-${slug(entry.task)}-kill-${entry.kills.map((k) => (k < 0 ? 'start' : String(k))).join('-')}${order}.json`);
  writeFileSync(file, `${JSON.stringify({ suite: entry.suite, task: entry.task, kills: entry.kills, ...(picks.length > 0 ? { interleaving: picks } : {}), found: entry.found }, null, 2)}\n`);
  return file;
}
