// Bad input on the command line: the message names the option and what was expected (exit 2).
// In a file of its own so that the commands and the dispatcher that loads them do not import each other.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
