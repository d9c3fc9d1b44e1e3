// The suite starts python3 hundreds of times (every life of the Python harness agents). Where the
// python3 on PATH is a version manager's shim (pyenv's is a bash script that runs `pyenv exec`,
// several processes: about half a second of CPU per start on a 2-core machine, against 0.07 s for
// the interpreter itself), the interpreter the shim picks is asked for once, and a one-line
// script that runs it goes first on the tests' PATH: the same python3, without the shim at every
// life. The tests still start `python3` by name, as a user does.

import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, openSync, readFileSync, readSync, renameSync, closeSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The environment the tests run with: PATH with the interpreter first, or nothing to change (no python3, or python3 is the interpreter itself). */
export function pythonFirstOnPath(projectRoot: string): Record<string, string> {
  if (!isScript(onPath('python3'))) return {}; // the interpreter itself, or none
  const asked = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const interpreter = asked.status === 0 ? asked.stdout.trim() : '';
  if (interpreter === '') return {}; // no python3: the tests that need it say so themselves
  const dir = join(projectRoot, 'tmp', 'python3-first');
  const script = join(dir, 'python3');
  // exec: the interpreter runs as itself, its own path in argv[0] (a virtual environment stays one).
  const text = `#!/bin/sh\nexec '${interpreter.replaceAll("'", `'\\''`)}' "$@"\n`;
  let current = '';
  try {
    current = readFileSync(script, 'utf8');
  } catch {
    // not written yet
  }
  if (current !== text) {
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed, so that a suite starting beside this one never runs half a script.
    const aside = `${script}.${process.pid}`;
    writeFileSync(aside, text);
    chmodSync(aside, 0o755);
    renameSync(aside, script);
  }
  return { PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` };
}

/** The file PATH finds for `command`, or null. */
function onPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir === '' ? '.' : dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** Whether the file starts with "#!": a script, run by another program. */
function isScript(file: string | null): boolean {
  if (file === null) return false;
  const fd = openSync(file, 'r');
  try {
    const start = Buffer.alloc(2);
    return readSync(fd, start, 0, 2, 0) === 2 && start.toString('latin1') === '#!';
  } finally {
    closeSync(fd);
  }
}
