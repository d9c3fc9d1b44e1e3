// killpoint/vitest: every kill point of your agent as vitest tests. One call declares a suite: the
// schedules kept in your corpus folder replay first, then one test per task explores every kill
// point (up to `kills` kills) and fails with the report the command line prints: the minimal kill
// point, what differs from the run never killed, and the one command that replays it.
//
//   import { killpointTests } from 'killpoint/vitest';
//   killpointTests('refund agent', { agent: ['node', 'dist/agent.js'], kills: 2, corpus: 'test/killpoint-corpus' });

import { describe as vitestDescribe, test as vitestTest } from 'vitest';
import { checkAgent, checkAgentSchedule, type AgentCommand } from '../api/check-agent.js';
import { addToUserCorpus, loadUserCorpus } from './user-corpus.js';

export interface KillpointTestsOptions {
  /** The command that starts one life of the agent (it speaks the kill protocol: killpoint/agent). */
  agent: AgentCommand;
  /**
   * The tasks, by name, each with the arguments added to the agent's command for it. Default: one
   * task, the agent's own.
   */
  tasks?: Record<string, readonly string[]>;
  /** 1: every kill point of the first life; 2: and every kill point of each recovery. Default 1. */
  kills?: 1 | 2;
  /** A folder of schedules that once failed: replayed first; a new failure is added to it. */
  corpus?: string;
  /** Lives run side by side. Default 2. */
  concurrency?: number;
  /** A life that runs longer is taken to hang: the test fails with that error. Default 120 s. */
  lifeTimeoutMs?: number;
  /** Per test (vitest's timeout). Default 10 minutes: a whole search runs in one test. */
  timeoutMs?: number;
}

/** The vitest functions the suite is declared with (replaceable, so that killpoint can test this module). */
export interface TestApi {
  describe: (name: string, body: () => void) => void;
  test: (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
}

const VITEST: TestApi = { describe: vitestDescribe, test: vitestTest };

const ONE_TASK = 'its task';

function agentFor(agent: AgentCommand, extra: readonly string[]): AgentCommand {
  if (extra.length === 0) return agent;
  return Array.isArray(agent) ? [...(agent as readonly string[]), ...extra] : { command: (agent as { command: string }).command, args: [...((agent as { args?: readonly string[] }).args ?? []), ...extra] };
}

export function killpointTests(suite: string, options: KillpointTestsOptions, api: TestApi = VITEST): void {
  if (typeof suite !== 'string' || suite === '') throw new TypeError('killpointTests: expected the suite name as a non-empty string');
  if (typeof options !== 'object' || options === null || options.agent === undefined) throw new TypeError(`killpointTests("${suite}"): expected options with agent: the command that starts one life`);
  const kills = options.kills ?? 1;
  if (kills !== 1 && kills !== 2) throw new TypeError(`killpointTests("${suite}"): kills: expected 1 or 2, got ${String(kills)}`);
  const tasks = Object.entries(options.tasks ?? { [ONE_TASK]: [] });
  if (tasks.length === 0) throw new TypeError(`killpointTests("${suite}"): tasks: expected at least one task`);
  const timeoutMs = options.timeoutMs ?? 600_000;
  const corpus = options.corpus === undefined ? [] : loadUserCorpus(options.corpus, suite);
  const unknown = corpus.find((e) => !tasks.some(([name]) => name === e.task));
  if (unknown !== undefined) throw new TypeError(`killpointTests("${suite}"): ${unknown.file}: task: expected one of ${tasks.map(([n]) => JSON.stringify(n)).join(', ')}, got ${JSON.stringify(unknown.task)}`);
  const checkOptions = (extra: readonly string[]) => ({ agent: agentFor(options.agent, extra), kills, concurrency: options.concurrency, lifeTimeoutMs: options.lifeTimeoutMs });

  api.describe(suite, () => {
    for (const entry of corpus) {
      const extra = tasks.find(([name]) => name === entry.task)![1];
      api.test(`${entry.task}: replays kill schedule ${entry.kills.join(',')} from the corpus (${entry.file})`, async () => {
        const replay = await checkAgentSchedule(checkOptions(extra), entry.kills);
        if (!replay.ok) throw new Error(`a schedule kept in the corpus fails again:\n${replay.report}`);
      }, timeoutMs);
    }
    for (const [task, extra] of tasks) {
      api.test(`${task}: survives every kill point, up to ${kills} kill${kills === 1 ? '' : 's'}`, async () => {
        const check = await checkAgent(checkOptions(extra));
        if (check.ok) return;
        let kept = '';
        if (options.corpus !== undefined && check.minimal !== null) {
          const file = addToUserCorpus(options.corpus, { suite, task, kills: check.minimal.kills, found: `${check.minimal.failed.join(', ')}: ${check.minimal.differences.join('; ')}` });
          kept = `\n(kept in the corpus as ${file}: it replays first from now on)`;
        }
        throw new Error(`${check.report}${kept}`);
      }, timeoutMs);
    }
  });
}

export { loadUserCorpus, addToUserCorpus, type UserCorpusEntry, UserCorpusError } from './user-corpus.js';
