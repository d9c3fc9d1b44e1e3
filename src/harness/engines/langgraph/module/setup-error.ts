// A user's module that cannot be checked as it is (missing, without the export asked for, a graph
// compiled without killpoint's checkpointer, effects that are not records): bad input, told in one
// line, never a verdict about the agent.

export class LangGraphSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LangGraphSetupError';
  }
}
