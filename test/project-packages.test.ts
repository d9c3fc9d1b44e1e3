// killpoint's side of a life takes the engine's packages from the user's project, not its own copies
// (src/harness/user-module/project-packages.ts): the plugin on small packages of its own making,
// then the LangGraph child's bundle of a module whose project holds its own checkpointer package.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, test } from 'vitest';
import { userModuleChildBundle } from '../src/harness/user-module/bundle.js';
import { isKillpointCode, killpointPeers, packageOf, projectPackagesFirst } from '../src/harness/user-module/project-packages.js';
import { CODE_ROOT, PACKAGE_ROOT, siblingModule } from '../src/harness/process/package-paths.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A package `name` in `nodeModules` whose `who` says whose copy it is. */
function fakePackage(nodeModules: string, name: string, who: string, body = ''): void {
  write(join(nodeModules, name, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', main: 'index.js' }));
  write(join(nodeModules, name, 'index.js'), `${body}export const who = ${JSON.stringify(who)};\n`);
}

describe('the plugin', () => {
  // killpoint/ (its code in src/, its copies in node_modules/) and project/ (the module, its copies), side by side.
  const root = mkdtempSync(join(tmpdir(), 'killpoint-project-packages-'));
  made.push(root);
  const code = join(root, 'killpoint', 'src');
  fakePackage(join(root, 'killpoint', 'node_modules'), 'engine-lib', 'killpoint');
  fakePackage(join(root, 'killpoint', 'node_modules'), 'only-killpoint-has', 'killpoint');
  fakePackage(join(root, 'killpoint', 'node_modules'), 'own-dependency', 'killpoint');
  // killpoint's copy of a peer imports another peer: a package's own imports are Node's to resolve.
  fakePackage(join(root, 'killpoint', 'node_modules'), 'peer-importer', 'killpoint', "export { who as itsEngineLib } from 'engine-lib';\n");
  fakePackage(join(root, 'project', 'node_modules'), 'engine-lib', 'project');
  fakePackage(join(root, 'project', 'node_modules'), 'own-dependency', 'project');
  write(join(code, 'life.js'), [
    "export { who as engineLib } from 'engine-lib';",
    "export { who as onlyKillpointHas } from 'only-killpoint-has';",
    "export { who as ownDependency } from 'own-dependency';",
    "export { itsEngineLib as peerImporterSees } from 'peer-importer';",
  ].join('\n'));
  write(join(root, 'project', 'agent.js'), "export { who as modulesEngineLib } from 'engine-lib';\n");

  async function bundled(withPlugin: boolean): Promise<Record<string, string>> {
    const outfile = join(root, `out-${withPlugin}.mjs`);
    const plugin = projectPackagesFirst({ moduleDir: join(root, 'project'), fromKillpoint: (path) => path.startsWith(`${code}${sep}`), packages: new Set(['engine-lib', 'only-killpoint-has', 'peer-importer']) });
    await build({
      stdin: { contents: `export * from ${JSON.stringify(join(code, 'life.js'))};\nexport * from './agent.js';`, resolveDir: join(root, 'project') },
      outfile, bundle: true, platform: 'node', format: 'esm', logLevel: 'silent', plugins: withPlugin ? [plugin] : [],
    });
    return { ...((await import(pathToFileURL(outfile).href)) as Record<string, string>) };
  }

  test("killpoint's imports of a peer take the project's copy; killpoint's only where the project has none; its own dependencies and a package's imports stay as they are", async () => {
    expect(await bundled(true)).toEqual({ engineLib: 'project', modulesEngineLib: 'project', onlyKillpointHas: 'killpoint', ownDependency: 'killpoint', peerImporterSees: 'killpoint' });
    // Without it, the life and the module load two copies of the engine's library.
    expect((await bundled(false)).engineLib).toBe('killpoint');
  });
});

describe('as killpoint runs it', () => {
  test("the peers are killpoint's peer dependencies; its code is src/ or dist/, not a package", () => {
    const peers = killpointPeers();
    for (const p of ['@langchain/langgraph', '@langchain/core', 'zod', 'ai', '@restatedev/restate-sdk', 'workflow']) expect(peers.has(p), p).toBe(true);
    for (const p of ['esbuild', 'seedrandom', 'tsx']) expect(peers.has(p), p).toBe(false);
    expect(isKillpointCode(join(CODE_ROOT, 'harness', 'engines', 'langgraph', 'evented-saver.ts'))).toBe(true);
    expect(isKillpointCode(join(PACKAGE_ROOT, 'node_modules', '@langchain', 'core', 'index.js'))).toBe(false);
    expect(isKillpointCode(join(CODE_ROOT, 'node_modules', 'zod', 'index.js'))).toBe(false);
    expect(packageOf('@langchain/core/messages')).toBe('@langchain/core');
    expect(packageOf('zod/v3')).toBe('zod');
  });

  test("a LangGraph module's child bundle takes the checkpointer package of the module's project, not killpoint's copy", async () => {
    // Inside the clone, so that the project's copy finds the rest of its packages above it, as in a user's project.
    mkdirSync(join(PACKAGE_ROOT, 'tmp'), { recursive: true });
    const project = mkdtempSync(join(PACKAGE_ROOT, 'tmp', 'project-packages-'));
    made.push(project);
    const checkpointer = join('node_modules', '@langchain', 'langgraph-checkpoint-sqlite');
    cpSync(join(PACKAGE_ROOT, checkpointer), join(project, checkpointer), { recursive: true });
    cpSync(join(PACKAGE_ROOT, 'test', 'fixtures', 'langgraph-modules', 'tiny-graph.ts'), join(project, 'graph.ts'));
    const childMain = siblingModule(pathToFileURL(join(CODE_ROOT, 'harness', 'engines', 'langgraph', 'module', 'child-main.ts')).href, 'child-main');
    const bundle = await userModuleChildBundle({ module: join(project, 'graph.ts'), childMain, packages: { langgraph: '@langchain/langgraph' } });
    expect(bundle).not.toBeNull();
    // esbuild names each file it inlines in a comment, by its path from the working folder.
    const inlined = [...readFileSync(bundle!, 'utf8').matchAll(/^\/\/ (.*langgraph-checkpoint-sqlite\/.*)$/gm)].map((m) => m[1]!);
    expect(inlined.length).toBeGreaterThan(0);
    for (const file of inlined) expect(file).toContain(`${project.slice(PACKAGE_ROOT.length + 1)}/${checkpointer}/`);
  }, 60_000);
});
