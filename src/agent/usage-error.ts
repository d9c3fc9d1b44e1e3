/** A call of the agent client given something it cannot use: the message names the call and what was expected. */
export class AgentUsageError extends Error {
  constructor(call: string, problem: string) {
    super(`killpoint/agent ${call}: ${problem}`);
    this.name = 'AgentUsageError';
  }
}
