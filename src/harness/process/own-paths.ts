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
// Not a property of the same name; in a string or a comment they are words, not code (textOnly).
const OWN_PATH_WORDS = /import\.meta\.(url|dirname|filename)|(?<![.\w$])__(dirname|filename)(?![\w$])/g;

/** The esbuild plugin that writes each file's own path into it, for the files `applies` picks. */
export function keepOwnPaths(applies: (path: string) => boolean): Plugin {
  return {
    name: 'killpoint-keep-own-paths',
    setup(build) {
      build.onLoad({ filter: SOURCE_FILE }, (args) => {
        if (!applies(args.path)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta') && !text.includes('__dirname') && !text.includes('__filename')) return undefined;
        const isText = textOnly(text);
        const contents = text.replace(OWN_PATH_WORDS, (word, ...rest) => {
          const offset = rest.at(-2) as number;
          if (isText(offset)) return word;
          if (word === 'import.meta.url') return JSON.stringify(pathToFileURL(args.path).href);
          if (word === 'import.meta.dirname' || word === '__dirname') return JSON.stringify(dirname(args.path));
          return JSON.stringify(args.path);
        });
        return { contents, loader: loaderOf(args.path), resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * Which offsets of a module's source lie in a string, a template's text or a comment, where the
 * words are text: "see import.meta.url" in a message stays as written (a path written there would
 * end the string early). One pass over the source, as a JavaScript scanner reads it; a slash
 * starts a regular expression where an operand is expected, and its text is skipped too.
 */
function textOnly(source: string): (offset: number) => boolean {
  const ranges: [number, number][] = [];
  const braces: number[] = []; // for each template substitution open, the brace depth it closes at
  let depth = 0;
  let lastCode = ''; // the last code character before this one, spaces aside
  let i = 0;
  const skipString = (quote: string): void => {
    const start = i++;
    while (i < source.length && source[i] !== quote && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
    ranges.push([start, ++i]);
  };
  /** A template's text from i (just after ` or }), up to its end or its next substitution. */
  const skipTemplateText = (): void => {
    const start = i;
    while (i < source.length && source[i] !== '`' && !(source[i] === '$' && source[i + 1] === '{')) i += source[i] === '\\' ? 2 : 1;
    ranges.push([start, i]);
    if (source[i] === '`') i++;
    else if (i < source.length) {
      i += 2;
      braces.push(depth++);
    }
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      ranges.push([i, (i = end === -1 ? source.length : end)]);
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      ranges.push([i, (i = end === -1 ? source.length : end + 2)]);
    } else if (c === '"' || c === "'") {
      skipString(c);
      lastCode = c;
    } else if (c === '`') {
      i++;
      skipTemplateText();
      lastCode = '`';
    } else if (c === '/' && (lastCode === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastCode))) {
      const start = i++;
      let inClass = false;
      while (i < source.length && source[i] !== '\n' && (inClass || source[i] !== '/')) {
        if (source[i] === '\\') i++;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        i++;
      }
      ranges.push([start, ++i]);
      lastCode = '/';
    } else {
      if (c === '{') depth++;
      if (c === '}') {
        depth--;
        if (braces.at(-1) === depth) {
          braces.pop();
          i++;
          skipTemplateText();
          lastCode = '`';
          continue;
        }
      }
      if (!/\s/.test(c)) lastCode = c;
      i++;
    }
  }
  return (offset) => ranges.some(([start, end]) => offset >= start && offset < end);
}

function loaderOf(path: string): Loader {
  if (/\.[mc]?ts$/.test(path)) return 'ts';
  if (path.endsWith('.tsx')) return 'tsx';
  if (path.endsWith('.jsx')) return 'jsx';
  return 'js';
}
