// The ways a killed run recovers, and the broken variants that exist to prove the checks can fail.

export type Recovery = 'restart' | 'journal' | 'workflow';

export const STRATEGY_NAMES = ['restart', 'journal', 'journal+keys', 'workflow', 'workflow+keys'] as const;
export const BROKEN_VARIANT_NAMES = ['journal+random-keys', 'workflow+random-keys', 'journal+keys/last-message', 'journal/entry-before-write', 'journal/in-place', 'journal/partial-answer'] as const;

/**
 * A journal with a person in the loop: the scripted model of LangGraph's bundled approval shape
 * (approval/sync, approval/sync+keys), and a broken variant of it. Kept apart from the strategies
 * above: the experiment, its chapter tables and the benches compare those five.
 */
export const APPROVAL_STRATEGY_NAMES = ['journal+approval', 'journal+keys+approval', 'journal+approval/ask-before-save'] as const;

export type StrategyName = (typeof STRATEGY_NAMES)[number];
export type BrokenVariantName = (typeof BROKEN_VARIANT_NAMES)[number];
export type ApprovalStrategyName = (typeof APPROVAL_STRATEGY_NAMES)[number];
export type AnyStrategyName = StrategyName | BrokenVariantName | ApprovalStrategyName;

export interface Strategy {
  name: AnyStrategyName;
  recovery: Recovery;
  /**
   * stable: journal key = run id + tool call id, workflow key = workflow id + step number.
   * random: a fresh random id made inside the step, new after every restart (broken).
   */
  keys: 'none' | 'stable' | 'random';
  /** Where a resume looks for tool calls that have no result yet. `last-message` is the chapter's bug. */
  resume: 'every-message' | 'last-message';
  /** How the journal is written: temp file then rename, or in place (broken: a kill tears it). */
  journalWrite: 'rename' | 'in-place';
  /** When a write's journal entry is saved: after the write returns (default), or before it runs (broken: a kill loses the write). */
  journalEntry?: 'after-write' | 'before-write';
  /** `every-chunk` (broken): the journal also saves the answer while it streams, half of it included. */
  answerCheckpoint?: 'complete' | 'every-chunk';
  /**
   * A person approves each reply's refunds before they run (runner.ts: approvalWait), as LangGraph's
   * approval shape asks: once the reply is saved (`after-save`), or (broken) before it is saved, so
   * a kill while the run waits loses the reply the person was asked about and the recovery asks the
   * model again. Read by the journal's life alone (a conversation saved after every step, as
   * LangGraph's checkpoints are).
   */
  approval?: 'after-save' | 'before-save';
  broken: boolean;
  summary: string;
}

const STRATEGIES: Record<AnyStrategyName, Strategy> = {
  restart: { name: 'restart', recovery: 'restart', keys: 'none', resume: 'every-message', journalWrite: 'rename', broken: false,
    summary: 'nothing of the agent survives; run the task again from the top' },
  journal: { name: 'journal', recovery: 'journal', keys: 'none', resume: 'every-message', journalWrite: 'rename', broken: false,
    summary: 'the conversation is saved atomically after every step; carry on after the last saved step' },
  'journal+keys': { name: 'journal+keys', recovery: 'journal', keys: 'stable', resume: 'every-message', journalWrite: 'rename', broken: false,
    summary: 'as journal; every write carries the key run id + tool call id' },
  workflow: { name: 'workflow', recovery: 'workflow', keys: 'none', resume: 'every-message', journalWrite: 'rename', broken: false,
    summary: 'every model call and tool call is a step recorded after it returns; replay, then run the first unrecorded step' },
  'workflow+keys': { name: 'workflow+keys', recovery: 'workflow', keys: 'stable', resume: 'every-message', journalWrite: 'rename', broken: false,
    summary: 'as workflow; every write carries the key workflow id + step number' },
  'journal+random-keys': { name: 'journal+random-keys', recovery: 'journal', keys: 'random', resume: 'every-message', journalWrite: 'rename', broken: true,
    summary: 'BROKEN: as journal, with keys from a fresh random id made inside the step' },
  'workflow+random-keys': { name: 'workflow+random-keys', recovery: 'workflow', keys: 'random', resume: 'every-message', journalWrite: 'rename', broken: true,
    summary: 'BROKEN: as workflow, with keys from a fresh random id made inside the step' },
  'journal+keys/last-message': { name: 'journal+keys/last-message', recovery: 'journal', keys: 'stable', resume: 'last-message', journalWrite: 'rename', broken: true,
    summary: 'BROKEN: as journal+keys, but a resume looks for unanswered tool calls only in the last message' },
  'journal/entry-before-write': { name: 'journal/entry-before-write', recovery: 'journal', keys: 'none', resume: 'every-message', journalWrite: 'rename', journalEntry: 'before-write', broken: true,
    summary: 'BROKEN: as journal, but a write\'s journal entry is saved before the write runs, so a kill in between loses it' },
  'journal/partial-answer': { name: 'journal/partial-answer', recovery: 'journal', keys: 'none', resume: 'every-message', journalWrite: 'rename', answerCheckpoint: 'every-chunk', broken: true,
    summary: 'BROKEN: as journal, but the answer is saved while it streams, so a resume delivers half of it' },
  'journal+approval': { name: 'journal+approval', recovery: 'journal', keys: 'none', resume: 'every-message', journalWrite: 'rename', approval: 'after-save', broken: false,
    summary: 'as journal; a person approves each reply\'s refunds before they run (the model of LangGraph\'s approval/sync)' },
  'journal+keys+approval': { name: 'journal+keys+approval', recovery: 'journal', keys: 'stable', resume: 'every-message', journalWrite: 'rename', approval: 'after-save', broken: false,
    summary: 'as journal+keys; a person approves each reply\'s refunds before they run (the model of LangGraph\'s approval/sync+keys)' },
  'journal+approval/ask-before-save': { name: 'journal+approval/ask-before-save', recovery: 'journal', keys: 'none', resume: 'every-message', journalWrite: 'rename', approval: 'before-save', broken: true,
    summary: 'BROKEN: as journal+approval, but the person is asked before the reply is saved, so a kill while the run waits makes the recovery ask the model again' },
  'journal/in-place': { name: 'journal/in-place', recovery: 'journal', keys: 'none', resume: 'every-message', journalWrite: 'in-place', broken: true,
    summary: 'BROKEN: as journal, but the journal is overwritten in place instead of renamed, so a kill mid-save tears it' },
};

export function strategy(name: string): Strategy {
  const found = (STRATEGIES as Record<string, Strategy | undefined>)[name];
  if (!found) throw new Error(`unknown strategy "${name}": expected one of ${Object.keys(STRATEGIES).join(', ')}`);
  return found;
}

export const ALL_STRATEGY_NAMES: readonly AnyStrategyName[] = [...STRATEGY_NAMES, ...BROKEN_VARIANT_NAMES];

/** Every system of the scripted engine: the strategies and broken variants, then the approval strategies. */
export const SCRIPTED_SYSTEM_NAMES: readonly AnyStrategyName[] = [...ALL_STRATEGY_NAMES, ...APPROVAL_STRATEGY_NAMES];
