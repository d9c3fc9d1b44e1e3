// A bundled file keeps where it came from: import.meta.url (and dirname, filename), __dirname and
// __filename are written into it as its own path, as it would see them loaded unbundled. A user's
// module that reads a file beside itself still finds it (user-module/bundle.ts); a package inlined
// into a child still finds its own package.json (the Vercel local world writes its version from
// it into the world's folder, and refuses a world marked "bundled").

import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Loader, Plugin } from 'esbuild';

const SOURCE_FILE = /\.([mc]?[jt]s|[jt]sx)$/;
// Not inside a string that names them, nor a property of the same name.
const OWN_PATH_WORDS = /(?<!["'`])import\.meta\.(url|dirname|filename)|(?<![.\w$"'`])__(dirname|filename)(?![\w$])/g;

/** The esbuild plugin that writes each file's own path into it, for the files `applies` picks. */
export function keepOwnPaths(applies: (path: string) => boolean): Plugin {
  return {
    name: 'killpoint-keep-own-paths',
    setup(build) {
      build.onLoad({ filter: SOURCE_FILE }, (args) => {
        if (!applies(args.path)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta') && !text.includes('__dirname') && !text.includes('__filename')) return undefined;
        const contents = text.replace(OWN_PATH_WORDS, (word) => {
          if (word === 'import.meta.url') return JSON.stringify(pathToFileURL(args.path).href);
          if (word === 'import.meta.dirname' || word === '__dirname') return JSON.stringify(dirname(args.path));
          return JSON.stringify(args.path);
        });
        return { contents, loader: loaderOf(args.path), resolveDir: dirname(args.path) };
      });
    },
  };
}

function loaderOf(path: string): Loader {
  if (/\.[mc]?ts$/.test(path)) return 'ts';
  if (path.endsWith('.tsx')) return 'tsx';
  if (path.endsWith('.jsx')) return 'jsx';
  return 'js';
}
