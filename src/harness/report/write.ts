// Writes a report file; a path that cannot be written is bad input naming the option.

import { writeFileSync } from 'node:fs';
import { UsageError } from '../usage-error.js';

export function writeReportFile(path: string, text: string, option = '--html'): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new UsageError(`${option}: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
