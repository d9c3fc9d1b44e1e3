// Children must start fast: a child process's TypeScript is compiled once into one JavaScript
// file with esbuild, not compiled again by a TypeScript loader in every life. Bundles are cached
// (a clone's ignored tmp/ folder; installed, .cache/ in killpoint's own folder), named by the
// entry and a hash of the code, so every process (and every test worker) that needs the same child
// reuses one file. Installed from the package, the entry is the compiled JavaScript in dist/ and
// the packages it imports are found in the user's node_modules. Native addons (better-sqlite3)
// always stay external and load from node_modules as usual.
//
// A bundle with its packages inlined (LangGraph's, megabytes of JavaScript) spends a third of its
// start compiling: it is built as CommonJS and started by a small loader beside it that compiles
// it with V8's code cache (node:vm cachedData). The first child that ends by itself (not killed)
// leaves the cache, made at its exit so that the functions a life calls are in it; a cache V8 rejects (another
// node, other flags) is compiled without and made again. The cache changes how fast a child
// starts, never what it does. KILLPOINT_CODE_CACHE_REPORT=1 makes the loader say on stderr
// whether it found a cache and V8 took it (test/warm-children.test.ts).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { cacheDir, CODE_ROOT } from './package-paths.js';

const CACHE_DIR = cacheDir('children');

export interface ChildBundleOptions {
  /** The child's entry file. */
  entry: string;
  /**
   * `external`: packages are imported from node_modules at run time (small, fast to build).
   * `inline`: packages are bundled too (a child that imports a heavy framework starts far faster
   * from one file than from hundreds of modules), started through the code-cache loader; native
   * addons stay external.
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
  const name = `${basename(dirname(options.entry))}-${basename(options.entry).replace(/\.[tj]s$/, '')}-${sourcesHash(options)}`;
  const inline = options.packages === 'inline';
  const out = join(CACHE_DIR, `${name}.${inline ? 'cjs' : 'mjs'}`);
  if (existsSync(out)) return out;
  mkdirSync(CACHE_DIR, { recursive: true });
  const { build: esbuild } = await import('esbuild');
  // Built under a name of its own, then renamed: a concurrent builder never sees half a file.
  const code = inline ? join(CACHE_DIR, `${name}.code.cjs`) : out;
  const temp = `${code}.${process.pid}.tmp`;
  await esbuild({
    entryPoints: [options.entry],
    outfile: temp,
    bundle: true,
    platform: 'node',
    format: inline ? 'cjs' : 'esm',
    target: 'node20',
    logLevel: 'error',
    ...(inline ? { external: ['better-sqlite3'], plugins: [ownImportMetaUrl] } : { packages: 'external' as const }),
  });
  renameSync(temp, code);
  if (inline) {
    // The loader last: once it exists, the code it loads does.
    writeFileSync(`${out}.${process.pid}.tmp`, codeCacheLoader(basename(code), `${name}.v8-cache`));
    renameSync(`${out}.${process.pid}.tmp`, out);
  }
  return out;
}

/**
 * A package inlined into a CommonJS bundle keeps the URL of its own file as import.meta.url (which
 * CommonJS output would leave empty): the Vercel local world, for one, reads its package.json
 * beside it to write its version into the world's folder, and refuses a world marked "bundled".
 */
const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.(m?js)$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'js' };
    });
  },
};

/** The loader of a CommonJS bundle beside it, with V8's code cache (see the top of this file). */
function codeCacheLoader(codeFile: string, cacheFile: string): string {
  return `'use strict';
// Generated by killpoint: starts ${codeFile} with V8's code cache, ${cacheFile}.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const file = path.join(__dirname, ${JSON.stringify(codeFile)});
const cacheFile = path.join(__dirname, ${JSON.stringify(cacheFile)});
let cachedData;
try { cachedData = fs.readFileSync(cacheFile); } catch {}
const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {
  filename: file,
  cachedData,
  importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
if (process.env.KILLPOINT_CODE_CACHE_REPORT === '1') process.stderr.write('code cache: ' + (cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted') + '\\n');
if (cachedData === undefined || script.cachedDataRejected) {
  // Made at the exit of a child that was not killed, so that what its life compiled is in it.
  process.once('exit', () => {
    try {
      const temp = cacheFile + '.' + process.pid + '.tmp';
      fs.writeFileSync(temp, script.createCachedData());
      fs.renameSync(temp, cacheFile);
    } catch {}
  });
}
const bundled = new Module(file, module);
bundled.filename = file;
bundled.paths = Module._nodeModulePaths(path.dirname(file));
script.runInThisContext().call(bundled.exports, bundled.exports, Module.createRequire(file), bundled, file, path.dirname(file));
`;
}

/**
 * The path of `entry` bundled with its packages inlined, as a CommonJS module to require in this
 * process (a real engine's life run in process loads in a fraction of the time its hundreds of
 * modules take, and shares the child's build). No code cache: it is loaded once per process.
 */
export async function inlinedModule(entry: string): Promise<string> {
  const loader = await childBundle({ entry, packages: 'inline' });
  return loader.replace(/\.cjs$/, '.code.cjs');
}
