// A user's graph starts fast: its module, the packages it imports and killpoint's side of the life
// are bundled by esbuild into one ES module, once per killpoint process, instead of each life
// loading hundreds of modules through a TypeScript loader (about a second per life). ES module
// output keeps what a module may rely on (top-level await, import.meta); native addons and
// anything esbuild cannot bundle stay external and load from the project's node_modules, which
// is why the bundle is written under the project's node_modules/.cache (Node finds packages from
// where a file lies). The bundle also carries the copy of @langchain/core the graph uses, so the
// cassette (cassette.ts) wraps that copy's chat models.
//
// Where the bundle cannot be built, or KILLPOINT_LANGGRAPH_BUNDLE=0 asks for it, each life loads the
// module as it is through tsx (child.ts): slower, and as faithful.

import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { siblingModule } from '../../../process/package-paths.js';

/** Set to 0 to load the user's module unbundled in every life. */
export const BUNDLE_VARIABLE = 'KILLPOINT_LANGGRAPH_BUNDLE';

const CHILD_MAIN = siblingModule(import.meta.url, 'child-main');
const built = new Map<string, Promise<string | null>>();

/** The folder whose node_modules the module's packages come from: the nearest above it that has one. */
function projectRoot(module: string): string | null {
  for (let dir = dirname(module); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The bundled child of this module, or null when it is to be loaded unbundled. */
export function moduleChildBundle(module: string): Promise<string | null> {
  if (process.env[BUNDLE_VARIABLE] === '0') return Promise.resolve(null);
  let bundle = built.get(module);
  if (bundle === undefined) {
    bundle = build(module);
    built.set(module, bundle);
  }
  return bundle;
}

async function build(module: string): Promise<string | null> {
  const root = projectRoot(module);
  if (root === null) return null;
  const dir = join(root, 'node_modules', '.cache', 'killpoint');
  const out = join(dir, `langgraph-child-${process.pid}-${built.size}.mjs`);
  const entry = [
    `import * as userModule from ${JSON.stringify(`./${basename(module)}`)};`,
    "import * as chatModels from '@langchain/core/language_models/chat_models';",
    "import * as caches from '@langchain/core/caches';",
    `import { startModuleChild } from ${JSON.stringify(CHILD_MAIN)};`,
    'startModuleChild({ module: userModule, chatModels, caches });',
  ].join('\n');
  try {
    mkdirSync(dir, { recursive: true });
    const { build: esbuild } = await import('esbuild');
    await esbuild({
      stdin: { contents: entry, resolveDir: dirname(module), sourcefile: 'killpoint-langgraph-child.ts', loader: 'ts' },
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      external: ['better-sqlite3', '*.node'],
      // Packages written as CommonJS call require(): in an ES module it is made from the bundle's place.
      banner: { js: "import { createRequire as __killpointRequire } from 'node:module'; const require = __killpointRequire(import.meta.url);" },
    });
  } catch (error) {
    process.stderr.write(`killpoint: ${relative(process.cwd(), module)} could not be bundled (${((error as Error).message ?? String(error)).split('\n')[0]}); its lives load it unbundled, which is slower\n`);
    return null;
  }
  process.once('exit', () => rmSync(out, { force: true }));
  return out;
}
