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
