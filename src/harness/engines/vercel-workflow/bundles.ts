// The workflow and step bundles, built once per sweep by the Workflow SDK's own builder
// (@workflow/builders, as its framework plugins use it, without Next.js) from workflow/agent.ts and
// cached across processes under node_modules/.cache/killpoint, named by a hash of the workflow's
// source and the SDK's versions. The step bundle imports the SDK's packages by paths relative to
// where it lies, so it is built where it stays: in a folder of its own beside the final one, then
// renamed (a concurrent builder never sees half a folder). The parent loads the builder only here,
// and only when a Vercel Workflow system first runs.
//
// Bad input, said before any child starts: a package of the SDK missing (named, with the command
// that installs it), or a build that fails (its first error).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SystemInputError } from '../../engine.js';
import { installedVersion, PACKAGE_ROOT, siblingModule } from '../../process/package-paths.js';
import { pidAnswers } from '../../process/process-tree.js';
import { BUNDLE_FILES, type WorkflowIds } from './run-spec.js';
import { removedAtExit } from '../../process/removed-at-exit.js';

/** The packages every life loads (and the builder), each named as it is installed: a user's workflow with no model needs no more. */
export const WORKFLOW_SDK_PACKAGES = ['workflow', '@workflow/core', '@workflow/utils', '@workflow/world-local', '@workflow/builders'] as const;

/** What killpoint's own workflow file loads beside them: its agent is a DurableAgent on the AI SDK. */
export const REQUIRED_PACKAGES = [...WORKFLOW_SDK_PACKAGES, '@workflow/ai', 'ai'] as const;

/** The workflow file the builder compiles (its folder is the builder's working folder). */
const WORKFLOW_SOURCE = siblingModule(new URL('./workflow/', import.meta.url).href, 'agent');

/** Where the bundles are cached: node_modules/.cache/killpoint of the project killpoint runs in (a clone's, or the user's). */
function cacheRoot(): string {
  const nodeModules = existsSync(join(PACKAGE_ROOT, 'node_modules')) ? join(PACKAGE_ROOT, 'node_modules') : dirname(PACKAGE_ROOT);
  return join(nodeModules, '.cache', 'killpoint', 'vercel-workflow');
}

/** Names every package that is not installed; bad input, with the command that installs them. */
export function checkPackages(packages: readonly string[] = REQUIRED_PACKAGES, installed: (pkg: string) => string | null = installedVersion): void {
  const missing = packages.filter((p) => installed(p) === null);
  if (missing.length > 0) {
    throw new SystemInputError(`vercel-workflow: the Workflow SDK is not installed (missing ${missing.join(', ')}); install it with: npm install --save-dev ${missing.join(' ')}`);
  }
}

function bundleKey(source: string): string {
  const hash = createHash('sha256').update(readFileSync(source));
  for (const p of REQUIRED_PACKAGES) hash.update(`\0${p}@${installedVersion(p)}`);
  return hash.digest('hex').slice(0, 16);
}

interface Manifest {
  workflows?: Record<string, Record<string, { workflowId: string }>>;
}

/** Every workflow the build holds: its export's name and its id. */
export type BuiltWorkflows = { name: string; workflowId: string }[];

function builtWorkflows(manifest: Manifest): BuiltWorkflows {
  return Object.values(manifest.workflows ?? {}).flatMap((file) => Object.entries(file).map(([name, { workflowId }]) => ({ name, workflowId })));
}

/** The two workflows' ids of killpoint's own workflow file. */
function workflowIds(built: BuiltWorkflows): WorkflowIds {
  const find = (name: string): string => {
    const found = built.find((w) => w.name === name);
    if (found === undefined) throw new SystemInputError(`vercel-workflow: the build has no workflow ${name}`);
    return found.workflowId;
  };
  return { agent: find('agentWorkflow'), steps: find('stepsWorkflow') };
}

interface BuilderModule {
  BaseBuilder: abstract new (config: Record<string, unknown>) => object;
  createBaseBuilderConfig(options: { workingDir: string; dirs?: string[] }): Record<string, unknown>;
}

/** Builds both bundles into `outDir` with the SDK's builder; answers the workflows they hold. */
async function buildInto(source: string, outDir: string): Promise<BuiltWorkflows> {
  let builders: BuilderModule;
  try {
    builders = (await import('@workflow/builders')) as unknown as BuilderModule;
  } catch (error) {
    throw new SystemInputError(`vercel-workflow: the Workflow SDK's builder cannot be loaded (${(error as Error).message.split('\n')[0]}); install it with: npm install --save-dev @workflow/builders`);
  }
  // The source's folder, within its parent: the builder looks for workflows in the folders it is given.
  const workingDir = dirname(dirname(source));
  // The SDK's build steps are protected methods of its builder: a builder of our own calls them.
  class Builder extends (builders.BaseBuilder as unknown as new (config: Record<string, unknown>) => {
    createWorkflowsBundle(o: Record<string, unknown>): Promise<{ manifest: Manifest }>;
    createStepsBundle(o: Record<string, unknown>): Promise<{ manifest: Manifest }>;
  }) {
    async build(): Promise<void> {}
    async both(): Promise<Manifest> {
      const inputFiles = [source];
      const w = await this.createWorkflowsBundle({ outfile: join(outDir, BUNDLE_FILES.workflows), bundleFinalOutput: false, format: 'esm', inputFiles });
      // Without bundleTransitiveLocalStepDependencies Node would be handed the TypeScript files the steps import.
      await this.createStepsBundle({ outfile: join(outDir, BUNDLE_FILES.steps), externalizeNonSteps: true, rewriteTsExtensions: true, format: 'esm', inputFiles, bundleTransitiveLocalStepDependencies: true });
      return w.manifest;
    }
  }
  const builder = new Builder({ ...builders.createBaseBuilderConfig({ workingDir, dirs: [basename(dirname(source))] }), buildTarget: 'next' });
  try {
    return builtWorkflows(await builder.both());
  } catch (error) {
    // A failed build leaves its esbuild context undisposed, and esbuild's service (a child
    // process) would then keep killpoint from ever exiting: stopped here (a later build starts it
    // again). The builder's own copy of esbuild, wherever the user's install put it.
    await ((await import(pathToFileURL(createRequire(import.meta.resolve('@workflow/builders')).resolve('esbuild')).href)) as { stop(): Promise<void> | void }).stop();
    throw error;
  }
}

let built: Promise<string> | null = null;

/** The folder of the built bundles (built at most once per process, reused across processes). */
export function vercelBundles(): Promise<string> {
  built ??= buildBundles(WORKFLOW_SOURCE, cacheRoot());
  return built;
}

/** Builds the bundles of the workflow file `source` (in a folder `workflow/` of its project) under `root`, or finds them built there; answers their folder. */
export async function buildBundles(source: string, root: string): Promise<string> {
  checkPackages();
  const dir = join(root, bundleKey(source));
  if (existsSync(join(dir, BUNDLE_FILES.ids))) return dir;
  const temp = `${dir}.${process.pid}.tmp`;
  removeBuildsOfGoneProcesses(root);
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp, { recursive: true });
  try {
    const ids = workflowIds(await buildQuietly(() => buildInto(source, temp)));
    // The ids last: a folder with them is a whole build.
    writeFileSync(join(temp, BUNDLE_FILES.ids), JSON.stringify(ids));
    try {
      renameSync(temp, dir);
    } catch (error) {
      // Another process renamed its build there first: the same sources, the same bundles.
      if (!existsSync(join(dir, BUNDLE_FILES.ids))) throw error;
    }
  } catch (error) {
    if (error instanceof SystemInputError) throw error;
    throw new SystemInputError(`vercel-workflow: the workflow and step bundles of ${source} failed to build: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return dir;
}

/** A process killed while it built (Ctrl-C, SIGKILL) leaves its half-built folder: the next build removes it. */
function removeBuildsOfGoneProcesses(root: string): void {
  if (!existsSync(root)) return;
  for (const name of readdirSync(root)) {
    const pid = Number(/\.(\d+)\.tmp$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !pidAnswers(pid)) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/**
 * The builder talks on the console (its progress, a debug file it could not write): not killpoint's
 * output, which a reader parses. A failed build is named by its first error, with where it is (its
 * esbuild, a process of its own, also prints the errors on the stderr it shares with killpoint).
 */
async function buildQuietly<T>(work: () => Promise<T>): Promise<T> {
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
  const said: string[] = [];
  const keep = (...args: unknown[]) => void said.push(args.map(String).join(' '));
  Object.assign(console, { log: keep, info: keep, warn: keep, error: keep, debug: keep });
  try {
    return await work();
  } catch (error) {
    if (error instanceof Error && !(error instanceof SystemInputError)) error.message = `${error.message.split('\n')[0]} (${firstBuildError(error) ?? said.find((line) => /error/i.test(line))?.split('\n')[0] ?? 'no message'})`;
    throw error;
  } finally {
    Object.assign(console, saved);
  }
}

/** esbuild's first error of a failed build, with its file and line. */
function firstBuildError(error: Error): string | undefined {
  const first = (error as { errors?: { text?: string; location?: { file?: string; line?: number } | null }[] }).errors?.[0];
  if (first?.text === undefined) return undefined;
  const where = first.location?.file === undefined ? '' : `${first.location.file}:${first.location.line ?? '?'}: `;
  return `${where}${first.text.split('\n')[0]}`;
}

const moduleBuilds = new Map<string, Promise<string>>();

/**
 * The bundles of a user's workflow module, built once per killpoint process: its steps may import
 * any file of the user's, changed since an earlier build, so no build outlives the process that
 * made it (its folder is removed at exit, or by the next build once the process is gone). The
 * folder's ids file lists every workflow the module holds.
 */
export function moduleBundles(source: string): Promise<string> {
  let build = moduleBuilds.get(source);
  if (build === undefined) {
    build = buildModule(source);
    moduleBuilds.set(source, build);
  }
  return build;
}

async function buildModule(source: string): Promise<string> {
  // The module's own imports (the AI SDK among them, where it has a model) are its to install: a
  // missing one fails its build, named there.
  checkPackages(WORKFLOW_SDK_PACKAGES);
  const root = cacheRoot();
  removeBuildsOfGoneProcesses(root);
  const dir = join(root, `module-${createHash('sha256').update(source).digest('hex').slice(0, 12)}.${process.pid}.tmp`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  removedAtExit(dir);
  try {
    const built = await buildQuietly(() => buildInto(source, dir));
    writeFileSync(join(dir, BUNDLE_FILES.ids), JSON.stringify(built));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (error instanceof SystemInputError) throw error;
    throw new SystemInputError(`vercel-workflow: ${source} failed to build into workflow and step bundles: ${(error as Error).message.split('\n')[0]}`);
  }
  return dir;
}

/** The workflows' ids of a bundles folder. */
export function readWorkflowIds(dir: string): WorkflowIds {
  return JSON.parse(readFileSync(join(dir, BUNDLE_FILES.ids), 'utf8')) as WorkflowIds;
}
