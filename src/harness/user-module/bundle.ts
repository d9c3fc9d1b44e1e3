// A user's module starts fast: the module, the packages it imports and killpoint's side of the
// life are bundled by esbuild into one ES module, once per killpoint process, instead of each life
// loading hundreds of modules through a TypeScript loader (about a second per life for a LangGraph
// graph). ES module output keeps what a module may rely on (top-level await); the user's own files
// (and killpoint's) keep where they came from: import.meta.url (and dirname, filename), __dirname
// and __filename are written into each as its own path, so a module that reads a file beside
// itself still finds it. Packages are bundled as they are. Native addons stay external and load from the project's node_modules, which is
// why the bundle is written under the project's node_modules/.cache (Node finds packages from
// where a file lies).
// The engine may ask for packages of the user's own (resolved from the module's folder) to be
// handed to the life with the module: the copy the module uses, not another one. killpoint's side
// of the life takes the engine's packages from the module's project too (project-packages.ts).
//
// Where the bundle cannot be built, or KILLPOINT_MODULE_BUNDLE=0 asks for it, each life loads the
// module as it is through tsx (load.ts): slower, and as faithful.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { keepOwnPaths } from '../process/own-paths.js';
import { commonJsAsWritten } from './commonjs.js';
import { isKillpointCode, killpointPeers, projectPackagesFirst } from './project-packages.js';
import { CODE_ROOT, siblingModule } from '../process/package-paths.js';
import { pidAnswers } from '../process/process-tree.js';
import { removedAtExit } from '../process/removed-at-exit.js';

/** Set to 0 to load the user's module unbundled in every life. */
export const BUNDLE_VARIABLE = 'KILLPOINT_MODULE_BUNDLE';

const INTERCEPT_EARLY = siblingModule(import.meta.url, '../traffic/intercept-early');
const WATCH_EARLY = siblingModule(import.meta.url, '../traffic/watch-early');

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
  /**
   * For lives run in killpoint's own process: the bundle starts nothing; it exports what
   * `childMain` exports, and `loaded` ({ module, failure, ...packages }), to be imported here.
   */
  asModule?: boolean;
  /** Its traffic is played by killpoint: the interception is applied before anything else loads (traffic/intercept-early.ts). */
  traffic?: boolean;
}

/** The user's own files and killpoint's: not a package's. */
function ownFile(path: string): boolean {
  return !path.includes(`${sep}node_modules${sep}`) || path.startsWith(`${CODE_ROOT}${sep}`);
}

/** A process that ends without its exit handlers (killed, or a test worker stopped) leaves its bundles: the next build removes them. */
function removeBundlesOfGoneProcesses(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(/^(?:module|langgraph)-child-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !pidAnswers(pid)) rmSync(join(dir, name), { force: true });
  }
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
  const key = `${entry.module}|${entry.childMain}|${entry.asModule === true}|${entry.traffic === true}`;
  let bundle = built.get(key);
  if (bundle === undefined) {
    bundle = build(entry);
    built.set(key, bundle);
  }
  return bundle;
}

async function build({ module, childMain, packages, external = [], asModule = false, traffic = false }: ModuleChildEntry): Promise<string | null> {
  const root = projectRoot(module);
  if (root === null) return null;
  const dir = join(root, 'node_modules', '.cache', 'killpoint');
  // Named apart from every other bundle: worker threads share a process id.
  const out = join(dir, `module-child-${process.pid}-${randomBytes(6).toString('hex')}.mjs`);
  // The module is imported inside a try, so that one that throws as it loads is named by the life (bad input), not a crash.
  const loaded = `{ module: userModule, failure${Object.keys(packages).map((name) => `, ${name}`).join('')} }`;
  const entry = [
    // A child's requests are played (a cassette) or watched (none) from before the module loads; in killpoint's own process, moduleLifeHere does it.
    ...(traffic ? [`import ${JSON.stringify(INTERCEPT_EARLY)};`] : asModule ? [] : [`import ${JSON.stringify(WATCH_EARLY)};`]),
    ...Object.entries(packages).map(([name, specifier]) => `import * as ${name} from ${JSON.stringify(specifier)};`),
    asModule ? `export * from ${JSON.stringify(childMain)};` : `import { startModuleChild } from ${JSON.stringify(childMain)};`,
    'let userModule;',
    'let failure;',
    `try { userModule = await import(${JSON.stringify(`./${basename(module)}`)}); } catch (error) { failure = error; }`,
    asModule ? `export const loaded = ${loaded};` : `startModuleChild(${loaded});`,
  ].join('\n');
  try {
    mkdirSync(dir, { recursive: true });
    removeBundlesOfGoneProcesses(dir);
    const { build: esbuild } = await import('esbuild');
    await esbuild({
      stdin: { contents: entry, resolveDir: dirname(module), sourcefile: 'killpoint-module-child.ts', loader: 'ts' },
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      // tsx loads a module unbundled; a bundled life never needs it.
      external: ['better-sqlite3', '*.node', 'tsx', 'tsx/*', ...external],
      plugins: [projectPackagesFirst({ moduleDir: dirname(module), fromKillpoint: isKillpointCode, packages: killpointPeers() }), keepOwnPaths(ownFile), commonJsAsWritten((path) => ownFile(path) && !path.startsWith(`${CODE_ROOT}${sep}`))],
      // Packages written as CommonJS call require(): in an ES module it is made from the bundle's place.
      banner: { js: "import { createRequire as __killpointRequire } from 'node:module'; const require = __killpointRequire(import.meta.url);" },
    });
  } catch (error) {
    process.stderr.write(`killpoint: ${relative(process.cwd(), module)} could not be bundled (${((error as Error).message ?? String(error)).split('\n').slice(0, 3).join(' ')}); its lives load it unbundled, which is slower\n`);
    return null;
  }
  removedAtExit(out);
  return out;
}
