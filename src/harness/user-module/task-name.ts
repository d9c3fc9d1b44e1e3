// A user's task named by what it runs (a DBOS workflow by its registered name, a Restate handler by
// its service and handler), not by its module's file (a module is often index.ts): the engine's
// child loads the module once in a process of its own, before any life, and writes the name its
// engine reads off what the module's export returned. A process of its own: making a workflow
// registers it (DBOS), and a module may start a server as it loads; nothing of that is left in
// killpoint's process or in the lives. Where the module cannot be loaded, the task keeps its file's
// name, and its first life names what is wrong (bad input).

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { heldTempDir, runChild } from '../process/processes.js';
import { TASK_NAME_VARIABLE } from './task-name-child.js';

/** A module that does not load in this time is not named by the child: its lives will say what it does. */
const TASK_NAME_TIMEOUT_MS = 60_000;

/** What the child loads and runs: its bundle and the variable that names its run file. */
export interface TaskNameChild {
  bundle: () => Promise<string>;
  runFileVariable: string;
}

/** The name the child read off the module, or undefined where it could not (the lives say why). */
export async function taskNameFromChild(child: TaskNameChild, spec: unknown): Promise<string | undefined> {
  // A module that cannot be built is named by its file: its first life says what is wrong.
  const bundle = await child.bundle().catch(() => null);
  if (bundle === null) return undefined;
  const held = heldTempDir('killpoint-task-name-');
  try {
    const runFile = join(held.dir, 'run.json');
    const nameFile = join(held.dir, 'name.json');
    // Its data folder is a scratch one: the module may keep it, and nothing of it is read.
    writeFileSync(runFile, JSON.stringify(spec));
    const exit = await runChild(process.execPath, [bundle], { ...process.env, [child.runFileVariable]: runFile, [TASK_NAME_VARIABLE]: nameFile }, undefined, TASK_NAME_TIMEOUT_MS);
    if (exit.code !== 0 || !existsSync(nameFile)) return undefined;
    const name = JSON.parse(readFileSync(nameFile, 'utf8')) as unknown;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } finally {
    held.release();
  }
}

/** A task's name, asked for once however often a report needs it; `fallback` where the child could not tell. */
export function onceNamed(name: () => Promise<string | undefined>, fallback: string): () => Promise<string> {
  let named: Promise<string> | undefined;
  return () => (named ??= name().then((n) => n ?? fallback));
}
