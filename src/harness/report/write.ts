// Writes a report file; a path that cannot be written is bad input naming the option, found before
// any work when the command asks first (prepareReportFile).

import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../usage-error.js';

const cannotWrite = (option: string, path: string, error: unknown) => new UsageError(`${option}: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);

export function writeReportFile(path: string, text: string, option = '--html'): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw cannotWrite(option, path, error);
  }
}

/**
 * Proves that the report can be written to `path` before the work that makes it (a whole
 * exploration of a real engine can take minutes): a file there is opened for writing without
 * being changed; otherwise a probe file is written and removed beside where it will go.
 */
export function prepareReportFile(path: string, option = '--html'): void {
  try {
    if (existsSync(path)) {
      closeSync(openSync(path, 'r+'));
      return;
    }
    const probe = join(dirname(resolve(path)), `.killpoint-write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    writeFileSync(probe, '', { flag: 'wx' });
    unlinkSync(probe);
  } catch (error) {
    throw cannotWrite(option, path, error);
  }
}
