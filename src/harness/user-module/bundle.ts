// A user's module starts fast: the module, the packages it imports and killpoint's side of the
// life are bundled by esbuild into one ES module, once per killpoint process, instead of each life
// loading hundreds of modules through a TypeScript loader (about a second per life for a LangGraph
// graph). ES module output keeps what a module may rely on (top-level await, import.meta); native
// addons stay external and load from the project's node_modules, which is why the bundle is
// written under the project's node_modules/.cache (Node finds packages from where a file lies).
// The engine may ask for packages of the user's own (resolved from the module's folder) to be
// handed to the life with the module: the copy the module uses, not another one.
//
// Where the bundle cannot be built, or KILLPOINT_MODULE_BUNDLE=0 asks for it, each life loads the
// module as it is through tsx (load.ts): slower, and as faithful.

import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

/** Set to 0 to load the user's module unbundled in every life. */
export const BUNDLE_VARIABLE = 'KILLPOINT_MODULE_BUNDLE';

const built = new Map<string, Promise<string | null>>();

export interface ModuleChildEntry {
  /** The user's module. */
  module: string;
  /** The engine's child main: a module exporting startModuleChild(loaded), called with { module, ...packages }. */
  childMain: string;
  /** Packages of the user's own to hand to the life, by the name it gets them under. */
  packages: Record<string, string>;
  /** Kept external (loaded from node_modules at run time) beside native addons. */
  external?: readonly string[];
}

/** The folder whose node_modules the module's packages come from: the nearest above it that has one. */
function projectRoot(module: string): string | null {
  for (let dir = dirname(module); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The bundled child of this module, or null when it is to be loaded unbundled. */
export function userModuleChildBundle(entry: ModuleChildEntry): Promise<string | null> {
  if (process.env[BUNDLE_VARIABLE] === '0') return Promise.resolve(null);
  const key = `${entry.module}|${entry.childMain}`;
  let bundle = built.get(key);
  if (bundle === undefined) {
    bundle = build(entry);
    built.set(key, bundle);
  }
  return bundle;
}

async function build({ module, childMain, packages, external = [] }: ModuleChildEntry): Promise<string | null> {
  const root = projectRoot(module);
  if (root === null) return null;
  const dir = join(root, 'node_modules', '.cache', 'killpoint');
  const out = join(dir, `module-child-${process.pid}-${built.size}.mjs`);
  const entry = [
    `import * as userModule from ${JSON.stringify(`./${basename(module)}`)};`,
    ...Object.entries(packages).map(([name, specifier]) => `import * as ${name} from ${JSON.stringify(specifier)};`),
    `import { startModuleChild } from ${JSON.stringify(childMain)};`,
    `startModuleChild({ module: userModule${Object.keys(packages).map((name) => `, ${name}`).join('')} });`,
  ].join('\n');
  try {
    mkdirSync(dir, { recursive: true });
    const { build: esbuild } = await import('esbuild');
    await esbuild({
      stdin: { contents: entry, resolveDir: dirname(module), sourcefile: 'killpoint-module-child.ts', loader: 'ts' },
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      external: ['better-sqlite3', '*.node', ...external],
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
