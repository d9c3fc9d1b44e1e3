// The Mastra systems killpoint checks, by name. Shared by the parent and the child; imports no Mastra.
//
//   workflow        a Mastra workflow (@mastra/core) whose steps are the model call and each tool
//                   call (a reply's calls as .parallel() steps, through the gate), its snapshots in
//                   @mastra/libsql on a file: URL in the run's folder, recovered by the run's own
//                   restart(). No keys: a step running (or just returned) at the kill runs again.
//   workflow+keys   as workflow; every write carries the key run id + tool call id.

export const SYSTEMS = ['workflow', 'workflow+keys'] as const;
export type MastraSystemName = (typeof SYSTEMS)[number];

export interface MastraConfig {
  name: MastraSystemName;
  keys: 'none' | 'stable';
}

export function mastraConfigNamed(name: string): MastraConfig | undefined {
  const known = SYSTEMS.find((s) => s === name);
  return known === undefined ? undefined : { name: known, keys: known === 'workflow+keys' ? 'stable' : 'none' };
}

export function allMastraConfigs(): MastraConfig[] {
  return SYSTEMS.map((name) => mastraConfigNamed(name)!);
}

/** The packages a Mastra life loads, beyond killpoint's own dependencies. */
export const MASTRA_NEEDS = { by: 'mastra', packages: ['@mastra/core', '@mastra/libsql'] } as const;
