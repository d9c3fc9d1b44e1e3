// The child's side of naming a task (task-name.ts): asked by its variable, the engine's child loads
// the module, reads the name off its export, writes it, and runs no life.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Set in the child's environment: the file to write the task's name to, instead of running a life. */
export const TASK_NAME_VARIABLE = 'KILLPOINT_MODULE_TASK_NAME';

/** In the child: writes the name `nameOf` reads off the module to the file the parent named. */
export async function writeTaskName(nameOf: (dataDir: string) => Promise<string>): Promise<void> {
  const nameFile = process.env[TASK_NAME_VARIABLE]!;
  const dataDir = join(dirname(nameFile), 'data');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(nameFile, JSON.stringify(await nameOf(dataDir)));
}
