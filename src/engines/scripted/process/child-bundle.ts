// Children must start fast: the TypeScript child is compiled once into one JavaScript file with
// esbuild, not compiled again by a TypeScript loader in every life. The bundle is cached under the
// project's ignored tmp/ folder, named by a hash of the sources, so every process (and every test
// worker) that needs the same sources reuses one file. Packages stay external: better-sqlite3 is a
// native addon and is loaded from node_modules as usual.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const SOURCE_DIR = join(PROJECT_ROOT, 'src');
const ENTRY = join(SOURCE_DIR, 'engines', 'scripted', 'process', 'child.ts');
const CACHE_DIR = join(PROJECT_ROOT, 'tmp', 'real-child');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []))
    .sort();
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of sourceFiles(SOURCE_DIR)) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

let pending: Promise<string> | null = null;

/** The path of the compiled child, built at most once per process and reused across processes. */
export function childBundle(): Promise<string> {
  pending ??= build();
  return pending;
}

async function build(): Promise<string> {
  const out = join(CACHE_DIR, `child-${sourcesHash()}.mjs`);
  if (existsSync(out)) return out;
  mkdirSync(CACHE_DIR, { recursive: true });
  const { build: esbuild } = await import('esbuild');
  // Built under a name of its own, then renamed: a concurrent builder never sees half a file.
  const temp = `${out}.${process.pid}.tmp.mjs`;
  await esbuild({ entryPoints: [ENTRY], outfile: temp, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'error' });
  renameSync(temp, out);
  return out;
}
