// Reading scenarios from files. Errors name the file; parse errors also name the field.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenario, ScenarioError, type Scenario } from './scenario.js';

/** The repository's top folder (the one holding package.json). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LANTERN_DIR = join(PROJECT_ROOT, 'scenarios', 'lantern');

export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(path, '(file)', `a readable file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(path, '(file)', `valid JSON (${(error as Error).message})`);
  }
  return parseScenario(raw, path);
}

/** Every scenario file in a folder, in file-name order. */
export function loadScenarioDir(dir: string): Scenario[] {
  const scenarios = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => loadScenarioFile(join(dir, name)));
  const ids = new Set<string>();
  for (const s of scenarios) {
    if (ids.has(s.id)) throw new ScenarioError(dir, 'id', `ids unique across the folder (${s.id} is used twice)`);
    ids.add(s.id);
  }
  return scenarios;
}

/** The bundled Lantern Outfitters support tasks. */
export function lanternScenarios(): Scenario[] {
  return loadScenarioDir(LANTERN_DIR);
}

export function lanternScenario(id: string): Scenario {
  const found = lanternScenarios().find((s) => s.id === id);
  if (!found) throw new Error(`no bundled Lantern scenario with id ${id}`);
  return found;
}
