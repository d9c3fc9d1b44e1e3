// The Mastra systems killpoint checks, by name. Shared by the parent and the child; imports no Mastra.
//
//   workflow        a Mastra workflow (@mastra/core) whose steps are the model call and each tool
//                   call (a reply's calls as .parallel() steps, through the gate), its snapshots in
//                   @mastra/libsql on a file: URL in the run's folder, recovered by the run's own
//                   restart(). No keys: a step running (or just returned) at the kill runs again.
//   workflow+keys   as workflow; every write carries the key run id + tool call id.
//   workflow+keys/bail  (a finding, not a default) as workflow+keys, the model step with the final
//                   answer ending the run with bail(): a kill right after that step's snapshot
//                   leaves the run `bailed`, which restart() refuses ("This workflow run was not
//                   active") and restartAllActiveWorkflowRuns() never lists: the run is never
//                   finished and its answer never sent.

export const SYSTEMS = ['workflow', 'workflow+keys', 'workflow+keys/bail'] as const;
export type MastraSystemName = (typeof SYSTEMS)[number];

export interface MastraConfig {
  name: MastraSystemName;
  keys: 'none' | 'stable';
  /** How the run ends once the model answers (workflow.ts). */
  endsBy: 'last-step' | 'bail';
  /** Shows a finding about Mastra rather than a way to recover: not checked unless named. */
  finding: boolean;
}

export function mastraConfigNamed(name: string): MastraConfig | undefined {
  const known = SYSTEMS.find((s) => s === name);
  if (known === undefined) return undefined;
  const bail = known.endsWith('/bail');
  return { name: known, keys: known.startsWith('workflow+keys') ? 'stable' : 'none', endsBy: bail ? 'bail' : 'last-step', finding: bail };
}

export function allMastraConfigs(): MastraConfig[] {
  return SYSTEMS.map((name) => mastraConfigNamed(name)!);
}

/** The packages a Mastra life loads, beyond killpoint's own dependencies. */
export const MASTRA_NEEDS = { by: 'mastra', packages: ['@mastra/core', '@mastra/libsql'] } as const;
