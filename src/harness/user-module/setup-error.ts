// A user's module that cannot be checked as it is (missing, without the export asked for, a graph
// or workflow made without killpoint's durable parts, effects that are not records): bad input,
// told in one line, never a verdict about the agent.

export class UserModuleSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserModuleSetupError';
  }
}

/** Exit status of a life that found the set-up unusable (the module, its exports, what they return): bad input. */
export const EXIT_BAD_SETUP = 4;

/** What a life that found the set-up unusable is said to be, after its name ("<module> life 2: cannot be checked: ..."). */
export const BAD_SETUP_PHRASE = 'cannot be checked';

/**
 * Whether an error a life run in killpoint's process ended with is the user's set-up (bad input),
 * matched by name: a life's bundle has classes of its own. `alsoNamed`: an engine's own set-up errors.
 */
export function isSetupError(error: unknown, alsoNamed: readonly string[] = []): boolean {
  const name = (error as Error | undefined)?.name;
  return name === 'UserModuleSetupError' || (name !== undefined && alsoNamed.includes(name));
}
