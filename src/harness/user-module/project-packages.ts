// A package that a user's module and killpoint's side of its life both load (the engine's library:
// @langchain/langgraph and its checkpointer, @langchain/core, the AI SDK, zod) is the copy the
// module would load itself. In the bundle (bundle.ts) killpoint's own code resolves such an import
// from the module's folder first; killpoint's copy is taken only where the module's project has
// none. Without this a clone of killpoint, a monorepo's root or a copy nested under
// node_modules/killpoint put a second LangGraph or @langchain/core beside the user's, and the life
// read the graph's checkpoints with the other copy. Which packages: killpoint's peer dependencies
// (the ones a user installs); its own dependencies stay its own. A package's own imports are left
// as Node resolves them: a package gets the versions it declared, whoever loaded it.

import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Plugin } from 'esbuild';
import { CODE_ROOT, PACKAGE_ROOT } from '../process/package-paths.js';

/** What the plugin is told: where the module's packages come from, whose imports it redirects, and of which packages. */
export interface ProjectPackages {
  /** The folder the module's own imports resolve from (its own folder). */
  moduleDir: string;
  /** Whether an importing file is killpoint's own code. */
  fromKillpoint: (importer: string) => boolean;
  /** The packages taken from the module's project where it has them. */
  packages: ReadonlySet<string>;
}

/** A bare specifier's package: `@scope/name` or `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const REDIRECTED = Symbol('killpoint-project-packages');

/** The esbuild plugin that resolves killpoint's imports of `packages` from the module's folder first. */
export function projectPackagesFirst({ moduleDir, fromKillpoint, packages }: ProjectPackages): Plugin {
  return {
    name: 'killpoint-project-packages-first',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === REDIRECTED || args.importer === '' || !fromKillpoint(args.importer)) return undefined;
        if (!packages.has(packageOf(args.path))) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, resolveDir: moduleDir, pluginData: REDIRECTED });
        // Not in the module's project: killpoint's own copy, resolved as esbuild would.
        if (found.errors.length > 0) return undefined;
        return { path: found.path, external: found.external, namespace: found.namespace, sideEffects: found.sideEffects, suffix: found.suffix };
      });
    },
  };
}

/** killpoint's peer dependencies: the packages that are the user's to install. */
export function killpointPeers(): ReadonlySet<string> {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
  return new Set(Object.keys(pkg.peerDependencies ?? {}));
}

/** A file of killpoint's own code (src/ in a clone, dist/ installed), not of a package. */
export function isKillpointCode(path: string): boolean {
  return path.startsWith(`${CODE_ROOT}${sep}`) && !path.includes(`${sep}node_modules${sep}`, CODE_ROOT.length);
}
