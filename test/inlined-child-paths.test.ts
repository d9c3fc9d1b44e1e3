// A child bundled with its packages inlined (one CommonJS file) must not change where a package
// thinks it lies: the Vercel local world reads the package.json beside its own file and writes its
// version into the world's folder, and refused a world marked "bundled" when an inlined copy saw
// no import.meta.url. Every inlined file sees its own path, as it would unbundled.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { childBundle } from '../src/harness/process/child-bundle.js';

const project = mkdtempSync(join(tmpdir(), 'killpoint-inlined-paths-'));
const built: string[] = [];
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  for (const loader of built) {
    const stem = loader.replace(/\.cjs$/, '');
    for (const name of readdirSync(dirname(loader))) if (join(dirname(loader), name).startsWith(stem)) rmSync(join(dirname(loader), name), { force: true });
  }
});

function aPackage(name: string, packageJson: object, index: string): string {
  const dir = join(project, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js', ...packageJson }));
  writeFileSync(join(dir, 'index.js'), index);
  return join(dir, 'index.js');
}

describe('a child bundled with its packages inlined', () => {
  it("leaves every package its own import.meta.url, __dirname and __filename, as unbundled", async () => {
    const esm = aPackage('where-esm', { type: 'module' }, 'export const url = import.meta.url;\n');
    const cjs = aPackage('where-cjs', {}, 'module.exports = { dirname: __dirname, filename: __filename };\n');
    const entry = join(project, 'entry.mjs');
    writeFileSync(entry, "import { url } from 'where-esm';\nimport where from 'where-cjs';\nconsole.log(JSON.stringify({ url, ...where }));\n");

    const loader = await childBundle({ entry, packages: 'inline' });
    built.push(loader);
    expect(basename(loader)).toMatch(/\.cjs$/);
    const run = spawnSync(process.execPath, [loader], { encoding: 'utf8' });

    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ url: pathToFileURL(esm).href, dirname: dirname(cjs), filename: cjs });
  }, 60_000);

  it('leaves the words as written where they are text: in a string, a template, a comment or a regular expression', async () => {
    const source = [
      'export const said = "read import.meta.url, not __dirname";',
      "export const single = 'import.meta.dirname';",
      '// import.meta.url in a comment, and "a quote',
      '/* __filename */ export const found = /import.meta.url"/.test(\'import.meta.url"\');',
      'export const url = `${import.meta.url} (from import.meta.url)`;',
      'export const nested = `${`${import.meta.filename}`}!`;',
      '',
    ].join('\n');
    const file = aPackage('words-esm', { type: 'module' }, source);
    const entry = join(project, 'words.mjs');
    writeFileSync(entry, "import * as w from 'words-esm';\nconsole.log(JSON.stringify({ ...w }));\n");

    const loader = await childBundle({ entry, packages: 'inline' });
    built.push(loader);
    const run = spawnSync(process.execPath, [loader], { encoding: 'utf8' });

    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      said: 'read import.meta.url, not __dirname',
      single: 'import.meta.dirname',
      found: true,
      url: `${pathToFileURL(file).href} (from import.meta.url)`,
      nested: `${file}!`,
    });
  }, 60_000);
});
