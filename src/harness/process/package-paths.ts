// Where killpoint's own files are, in a clone (TypeScript under src/, run through tsx) and once
// installed from the package (compiled JavaScript under dist/, in the user's node_modules, where
// there is no src/).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SystemInputError } from '../engine.js';

const CODE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The package's root folder: the clone, or node_modules/killpoint. */
export const PACKAGE_ROOT = resolve(CODE_DIR, '..');

/** The folder the running code comes from: src/ in a clone, dist/ when installed. */
export const CODE_ROOT = CODE_DIR;

/** True when killpoint runs from a clone's TypeScript sources. */
export const FROM_SOURCES = existsSync(join(PACKAGE_ROOT, 'src')) && CODE_DIR === join(PACKAGE_ROOT, 'src');

/**
 * A folder for files killpoint builds once and reuses across processes: the clone's ignored tmp/,
 * or, when installed, .cache/ in killpoint's own folder. Not the system's temp folder: a child
 * bundle imports the packages it leaves external (better-sqlite3, an engine's SDK) by Node's
 * resolution from where the bundle lies, which finds them only inside the user's project.
 */
export function cacheDir(name: string): string {
  return join(PACKAGE_ROOT, FROM_SOURCES ? 'tmp' : '.cache', name);
}

/** The module `name` beside the module at `moduleUrl`: name.ts in a clone, name.js when compiled. */
export function siblingModule(moduleUrl: string, name: string): string {
  const ts = fileURLToPath(new URL(`./${name}.ts`, moduleUrl));
  return existsSync(ts) ? ts : fileURLToPath(new URL(`./${name}.js`, moduleUrl));
}

/**
 * The version of an installed package as Node would find it from killpoint's code (the clone's
 * node_modules, or the user's, above node_modules/killpoint), or null when it is not installed.
 */
export function installedVersion(pkg: string): string | null {
  for (let dir = CODE_DIR; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', pkg, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) return null;
  }
}

/** The packages an engine's lives load, beyond killpoint's own dependencies (they are its optional peers). */
export interface PackageNeeds {
  /** Who needs them, for the message: the engine's name. */
  by: string;
  packages: readonly string[];
}

/**
 * Bad input naming every package of `needs` that Node would not find from killpoint's code, with
 * the command that installs them: checked before a first life, so that a user who has not
 * installed an engine's packages reads what to install, not a bundler's or a loader's stack.
 */
export function requirePackages(needs: PackageNeeds | undefined): void {
  const missing = (needs?.packages ?? []).filter((p) => installedVersion(p) === null);
  if (missing.length === 0) return;
  const what = missing.length === 1 ? `${missing[0]} is` : `${missing.join(', ')} are`;
  throw new SystemInputError(`${needs!.by}: ${what} not installed; install with: npm install --save-dev ${missing.join(' ')}`);
}
