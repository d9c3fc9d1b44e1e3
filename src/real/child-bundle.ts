// Children must start fast: a child process's TypeScript is compiled once into one JavaScript
// file with esbuild, not compiled again by a TypeScript loader in every life. Bundles are cached
// (a clone's ignored tmp/ folder; installed, .cache/ in killpoint's own folder), named by the
// entry and a hash of the code, so every process (and every test worker) that needs the same child
// reuses one file. Installed from the package, the entry is the compiled JavaScript in dist/ and
// the packages it imports are found in the user's node_modules. Native addons (better-sqlite3)
// always stay external and load from node_modules as usual.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cacheDir, CODE_ROOT } from './package-paths.js';

const CACHE_DIR = cacheDir('children');

export interface ChildBundleOptions {
  /** The child's entry file. */
  entry: string;
  /**
   * `external`: packages are imported from node_modules at run time (small, fast to build).
   * `inline`: packages are bundled too (a child that imports a heavy framework starts far faster
   * from one file than from hundreds of modules); native addons stay external.
   */
  packages: 'external' | 'inline';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : /\.[tj]s$/.test(d.name) ? [join(dir, d.name)] : []))
    .sort();
}

function sourcesHash(options: ChildBundleOptions): string {
  const hash = createHash('sha256').update(options.entry).update('\0').update(options.packages).update('\0');
  for (const file of sourceFiles(CODE_ROOT)) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

const pending = new Map<string, Promise<string>>();

/** The path of the compiled child, built at most once per process and reused across processes. */
export function childBundle(options: ChildBundleOptions): Promise<string> {
  const key = `${options.entry}|${options.packages}`;
  let built = pending.get(key);
  if (built === undefined) {
    built = build(options);
    pending.set(key, built);
  }
  return built;
}

async function build(options: ChildBundleOptions): Promise<string> {
  const out = join(CACHE_DIR, `${basename(dirname(options.entry))}-${basename(options.entry).replace(/\.[tj]s$/, '')}-${sourcesHash(options)}.mjs`);
  if (existsSync(out)) return out;
  mkdirSync(CACHE_DIR, { recursive: true });
  const { build: esbuild } = await import('esbuild');
  // Built under a name of its own, then renamed: a concurrent builder never sees half a file.
  const temp = `${out}.${process.pid}.tmp.mjs`;
  await esbuild({
    entryPoints: [options.entry],
    outfile: temp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    ...(options.packages === 'external'
      ? { packages: 'external' as const }
      : {
          external: ['better-sqlite3'],
          // CommonJS packages bundled into an ES module still call require().
          banner: { js: "import { createRequire as __killpointRequire } from 'node:module'; const require = __killpointRequire(import.meta.url);" },
        }),
  });
  renameSync(temp, out);
  return out;
}
