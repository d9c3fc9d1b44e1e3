// A user's file written as CommonJS (require() and module.exports, no import or export statement)
// runs as CommonJS in the bundle, wherever it lies. esbuild takes a .js or .ts file in a package of
// "type": "module" for an ES module whatever its syntax, and `module` is then undefined ("module is
// not defined" as the module loads), though tsx runs the same file as CommonJS. Such a file is put
// in a namespace of its own, where no package.json decides: esbuild reads its syntax and wraps it
// as CommonJS, its exports become the module's named ones.

import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Loader, Plugin } from 'esbuild';

const NAMESPACE = 'killpoint-commonjs';
/** Files whose format their package decides: .mjs/.mts and .cjs/.cts say their own. */
const PACKAGE_TYPED = /\.([jt]sx?)$/;
/** A statement of an ES module at the start of a line (not `import(`, which CommonJS has too). */
const ESM_STATEMENT = /^[ \t]*(import(?:[ \t]+[\w$]|[ \t]*[{*'"])|export[ \t{*])/m;
const COMMONJS_WORDS = /(?<![.\w$])(module\.exports|exports\.[\w$]+\s*=|require\s*\()/;

/** The file's text says CommonJS: it uses module.exports, exports or require(), and no import or export statement. */
export function writtenAsCommonJs(text: string): boolean {
  return COMMONJS_WORDS.test(text) && !ESM_STATEMENT.test(text);
}

/** The esbuild plugin that bundles the files `applies` picks as CommonJS when they are written so. */
export function commonJsAsWritten(applies: (path: string) => boolean): Plugin {
  return {
    name: 'killpoint-commonjs-as-written',
    setup(build) {
      // Only the module's own files, named by a path: packages are bundled as their own package.json says.
      build.onResolve({ filter: /^[./]|^[A-Za-z]:[\\/]/ }, async (args) => {
        if (args.pluginData === NAMESPACE || (args.namespace !== 'file' && args.namespace !== NAMESPACE)) return undefined;
        // A package's files import each other by path too: theirs are left to esbuild at no cost.
        if (args.namespace === 'file' && !applies(args.importer)) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: NAMESPACE });
        if (found.errors.length > 0 || found.external || !PACKAGE_TYPED.test(found.path) || !applies(found.path)) return undefined;
        return writtenAsCommonJs(readFileSync(found.path, 'utf8')) ? { path: found.path, namespace: NAMESPACE } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: loaderOf(args.path), resolveDir: dirname(args.path) }));
    },
  };
}

function loaderOf(path: string): Loader {
  if (path.endsWith('.ts')) return 'ts';
  if (path.endsWith('.tsx')) return 'tsx';
  if (path.endsWith('.jsx')) return 'jsx';
  return 'js';
}
