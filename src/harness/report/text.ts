// Failures as values, and the reporter that explains them. A report says what ran (scenario or
// generated shape, strategy, interleaving), what happened in each life up to its kill, what the
// recovery did, what differs from the baseline, where it came from (fast-check seed and path),
// and the one command that replays exactly this case.

import { shellWord } from '../shell-words.js';
import { CHECK_LABELS, CHECK_NAMES, differentWritesBecause, lostWrites, type CheckName } from '../check/checks.js';
import { describeEvent } from '../check/event-kinds.js';
import { killPointIdentity } from '../check/kill-points.js';
import { explorationFails, type JudgedCase, type Exploration } from '../search/explore.js';
import { repeatWithoutKillTitle, type RepeatWithoutKill } from '../check/repeat-without-kill.js';
import { type LifeRecord } from '../check/outcome.js';
import { differences } from '../check/verdict-lines.js';
import { secondDeliveries, secondDeliveryJson, secondDeliveryText } from '../check/redelivery.js';

/** Where a case can be replayed from. */
export type CaseSource =
  | { kind: 'scenario-file'; path: string }
  | { kind: 'corpus-entry'; path: string }
  /** A generated scenario not saved yet: the command that saves it as a corpus entry. */
  | { kind: 'generated'; saveCommand: string }
  /** An agent behind the kill protocol, started by this command line. */
  | { kind: 'harness'; command: string; /** Its traffic's options (--cassette ...), as a replay needs them. */ options?: readonly string[] }
  /** A system that runs a task of its own (a user's graph on its input): its selector says it all. */
  | { kind: 'own-task' };

export interface FastCheckOrigin {
  seed: number;
  path: string;
  property: string;
}

export interface Failure {
  judged: JudgedCase;
  source: CaseSource;
  origin?: FastCheckOrigin;
  /** A one-line description of a generated agent's shape (turns, calls, writes). */
  shape?: string;
}

/** The one command that replays exactly this case. */
export function replayCommand(source: CaseSource, judged: Pick<JudgedCase, 'system' | 'schedule'>): string {
  switch (source.kind) {
    case 'scenario-file': {
      const picks = judged.schedule.interleaving.length > 0 ? ` --interleaving ${judged.schedule.interleaving.join(',')}` : '';
      return `npx killpoint check ${source.path} ${judged.system.selector.map(shellWord).join(' ')} --schedule ${judged.schedule.kills.join(',')}${picks}`;
    }
    case 'corpus-entry':
      return `npx killpoint check ${source.path}`;
    case 'generated':
      return source.saveCommand;
    case 'own-task': {
      const picks = judged.schedule.interleaving.length > 0 ? ` --interleaving ${judged.schedule.interleaving.join(',')}` : '';
      return `npx killpoint check ${judged.system.selector.map(shellWord).join(' ')} --schedule ${judged.schedule.kills.join(',')}${picks}`;
    }
    case 'harness': {
      const picks = judged.schedule.interleaving.length > 0 ? ` --interleaving ${judged.schedule.interleaving.join(',')}` : '';
      const options = (source.options ?? []).map((w) => ` ${shellWord(w)}`).join('');
      return `npx killpoint harness --schedule ${judged.schedule.kills.join(',')}${picks}${options} -- ${source.command}`;
    }
  }
}

function lifeLines(life: LifeRecord, index: number): string[] {
  const name = index === 0 ? 'life 1 (the original run)' : `life ${index + 1} (recovery ${index})`;
  const end = life.end === 'killed'
    ? `killed after event ${life.killedAfter}${life.killedAfter === -1 ? ' (before its first event)' : ''}`
    : life.end === 'failed' ? `stopped: ${life.error}` : 'ran to its end';
  const lines = [`  ${name}: ${life.events.length} events, ${end}`];
  for (const e of life.events) {
    const mark = life.end === 'killed' && e.index === life.killedAfter ? '   <-- KILL' : '';
    // An agent behind the kill protocol need not say when its events happened.
    const at = typeof e.atMs === 'number' ? `${e.atMs.toFixed(2).padStart(9)} ms` : ' '.repeat(12);
    lines.push(`    ${String(e.index).padStart(3)} ${at}  ${describeEvent(e)}${mark}`);
  }
  if (life.events.length === 0 && life.end === 'killed') lines.push('    <-- KILL');
  return lines;
}

/** The kill points by identity, which stay the same moments when the order of events does not. */
function killAt(judged: Pick<JudgedCase, 'schedule' | 'outcome'>): string[] {
  return judged.schedule.kills.map((k, life) => killPointIdentity(judged.outcome.lives[life]?.events ?? [], k));
}

function killAtText(judged: JudgedCase): string {
  return judged.schedule.kills.length === 0 ? '' : ` (${killAt(judged).join(', ')})`;
}

/**
 * The keys a write done twice was committed with. A key that changes from one commit to the next
 * (a fresh random id, a timestamp) is the signature of a whole class of bugs: it makes no repeat
 * harmless. The same key twice means the store did not check it.
 */
function repeatKeyLines(judged: JudgedCase): string[] {
  const lines: string[] = [];
  for (const twice of judged.verdict.doneTwice) {
    const keys = judged.outcome.writes.filter((w) => w.kind === twice.kind && w.target === twice.target && w.args === twice.args).map((w) => w.key);
    if (keys.length < 2) continue;
    lines.push(`    ${twice.kind} ${twice.target} was committed ${keysText(keys)}`);
  }
  return lines;
}

/** The keys of the commits of one write, and what they tell: "no key" said once when none had one. */
function keysText(keys: readonly (string | null)[]): string {
  if (keys.every((k) => k === null)) return `${keys.length === 2 ? 'twice' : `${keys.length} times`} with no key: nothing made the repeat harmless`;
  const shown = keys.map((k) => (k === null ? 'no key' : `key ${k}`)).join(', ');
  const why = new Set(keys).size === keys.length ? 'the key changed between the commits, so it made no repeat harmless' : 'the same key twice: the store did not check it';
  return `with ${shown}: ${why}`;
}

/** The explanation of one failing (or passing) case. */
export function formatFailure(f: Failure): string {
  const { judged } = f;
  const labels = (checks: readonly CheckName[]) => checks.map((c) => CHECK_LABELS[c]).join(', ');
  // A case that fails only checks its strategy never promised is not a broken promise: say so,
  // rather than "FAILS" above a summary that says every promised check holds.
  const head = judged.broken.length > 0 ? `FAILS: ${labels(judged.broken)}`
    : judged.failed.length > 0 ? `fails checks the strategy does not promise: ${labels(judged.failed)}`
    : judged.repeatsWithoutKill.length > 0 ? 'holds at the kill, but its run never killed does an effect twice (below)'
    : 'holds';
  const lines = [
    `${judged.scenario.id} (${judged.scenario.title}) under ${judged.strategy}: ${head}`,
    ...(f.shape ? [`  generated shape: ${f.shape}`] : []),
    `  kill schedule: ${judged.schedule.kills.join(', ') || 'none'}${killAtText(judged)}; interleaving picks: ${judged.outcome.picksTaken.join(',') || 'none (default order)'}`,
    ...judged.outcome.lives.flatMap(lifeLines),
    '  what differs from the baseline:',
    ...(differences(judged.verdict).map((d) => `    ${d}`).concat(differences(judged.verdict).length === 0 ? ['    nothing'] : [])),
    ...causeLines(judged),
    ...repeatKeyLines(judged),
    ...secondDeliveryLines(judged),
    ...repeatWithoutKillLines(judged.repeatsWithoutKill),
  ];
  if (f.origin) lines.push(`  found by fast-check: property "${f.origin.property}", seed ${f.origin.seed}, path "${f.origin.path}"`);
  lines.push(`  replay: ${replayCommand(f.source, judged)}`);
  return lines.join('\n');
}

/** The turns delivered again to a recovery (--redeliver), and what each second delivery did. */
function secondDeliveryLines(judged: Pick<JudgedCase, 'outcome'>): string[] {
  const found = secondDeliveries(judged.outcome);
  if (found.length === 0) return [];
  return ['  second delivery (--redeliver):', ...found.map((d) => `    ${secondDeliveryText(d)}`)];
}

/** The JSON form of a case's second deliveries (--redeliver). */
export function secondDeliveriesJson(judged: Pick<JudgedCase, 'outcome'>): Record<string, unknown>[] {
  return secondDeliveries(judged.outcome).map(secondDeliveryJson);
}

/**
 * Consequences told with their first cause: a write never sent because a repeat in the gap was
 * refused and the model took the refusal's branch (counted against the gap, not as a lost write).
 */
function causeLines(judged: JudgedCase): string[] {
  const refused = (r: { callId: string; reason: string }) => `the repeat of ${r.callId} in the gap was refused (${r.reason}) and the model took the refusal's branch`;
  return [
    ...lostWrites(judged).because.map(({ write: w, repeat }) => `    ${w.kind} ${w.target} lost, because ${refused(repeat)}: the gap's consequence, not a lost write of its own`),
    ...differentWritesBecause(judged).map(({ write: w, repeat }) => `    ${w.kind} ${w.target} made instead, because ${refused(repeat)}`),
  ];
}

/** Above the bound: how far the minimal counterexample was made sure of beyond the sampled orders. */
function minimalSearchLines(e: Exploration): string[] {
  const m = e.minimalSearch;
  if (m === null) return [];
  if (m.orders === 0) return [`  the minimal counterexample is the earliest among the ${e.interleavings.explored} sampled orders only: the orders the sample missed were not searched (each life is a process; --interleavings raises the bound)`];
  const searched = m.everyOrder ? `${m.orders} orders, every one that could fail earlier` : `${m.orders} orders (the search's bound; there are more)`;
  return [m.foundEarlier
    ? `  an order the sample missed fails at an earlier kill point: the minimal counterexample below is that order's (searched ${searched} for an earlier failing kill)`
    : `  no order fails at an earlier kill point: searched ${searched} for one`];
}

/**
 * Each effect the run never killed made twice across a wait, apart from the kill findings (every
 * kill schedule is judged against that same run, so none of them shows it): its name, both writes.
 */
export function repeatWithoutKillLines(repeats: readonly RepeatWithoutKill[]): string[] {
  return repeats.flatMap((r) => {
    const write = `${r.write.kind} ${r.write.target} ${r.write.args}`;
    return [
      `  ${repeatWithoutKillTitle(r)}`,
      `    effect ${r.first}, before the run waited at ${r.wait}: ${write}`,
      `    effect ${r.second}, after ${r.wait} was answered: ${write} again`,
      `    what ${r.place} does before it waits, it does again once resumed: move it after the wait, into a step of its own, or give it a key`,
    ];
  });
}

/** One line per check count, for an exploration's summary. */
export function formatExploration(e: Exploration, source: CaseSource): string {
  const coverage = e.interleavings.exhaustive
    ? `${e.interleavings.explored} interleaving${e.interleavings.explored === 1 ? '' : 's'} (all)`
    : `more than ${e.interleavings.bound} interleavings: a seeded sample of ${e.interleavings.explored} (seed ${e.interleavings.sampleSeed})`;
  const found = [...e.brokenPromises.map((c) => CHECK_LABELS[c]), ...(e.repeatsWithoutKill.length > 0 ? ['done twice without any kill'] : [])];
  const status = found.length === 0 ? 'ok' : `FAIL (${found.join(', ')})`;
  const counts = (Object.entries(e.failures) as [CheckName, number][])
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${CHECK_LABELS[c]} ${n}${e.promised.includes(c) ? '' : ' (not promised)'}`);
  // "ok" beside counts of checks the system does not promise must not read as a pass of them.
  const notPromised = CHECK_NAMES.filter((c) => !e.promised.includes(c));
  const seenNotPromised = notPromised.filter((c) => e.failures[c] > 0);
  const header = found.length > 0
    ? status
    : seenNotPromised.length > 0
      ? `ok (every promised check held; not promised, and failed here: ${seenNotPromised.map((c) => CHECK_LABELS[c]).join(', ')})`
      : 'ok (every promised check held)';
  const r = e.reduction;
  const lines = [
    `${e.scenarioId} ${e.strategy}: ${header}`,
    `  ${e.schedulesExplored} schedules of up to ${e.kills} kill${e.kills === 1 ? '' : 's'}, ${coverage}`,
    ...minimalSearchLines(e),
    ...stoppedAtHangLines(e),
    ...baselineConversationLines(e),
    ...tierLines(e),
    ...(r === null ? [] : [`  covered by ${r.livesRun} lives run${r.childrenKilled === undefined ? '' : ` to their end and ${r.childrenKilled} ${e.tier === 'in-process' ? 'lives' : 'children'} killed at a kill point`}${r.livesRepeatedToCut === undefined ? '' : ` to their end and ${r.livesRepeatedToCut} run again, the state copied at ${r.killPointsCopied} kill points`}${r.livesJoined === undefined ? '' : `, ${r.livesJoined} of them stopped where they joined a life run before`} (${r.livesUnreduced} from scratch): ${r.distinctStates} distinct durable states, ${r.verdictsJudged} verdicts judged`]),
    `  promised: ${e.promised.map((c) => CHECK_LABELS[c]).join(', ')}`,
    `  not promised: ${notPromised.map((c) => CHECK_LABELS[c]).join(', ') || 'nothing (every check is promised)'}`,
    `  failures: ${counts.join(', ') || 'none'}`,
    ...repeatWithoutKillLines(e.repeatsWithoutKill),
  ];
  if (e.minimal) {
    // The explorer re-runs the earliest failing schedule to explain it; a system that does not
    // fail again at the same schedule is not deterministic there, which is a finding of its own.
    if (e.minimal.broken.length === 0) lines.push('  NOT REPRODUCED: the earliest failing schedule broke no promise when run again; the system under test does not run the same way twice there');
    // The effects done twice without any kill are told once, above: not again under the kill's case.
    lines.push('  minimal counterexample:', ...formatFailure({ judged: { ...e.minimal, repeatsWithoutKill: [] }, source }).split('\n').map((l) => `  ${l}`));
    // Each other broken promise with its own earliest schedule, when it is not the one above.
    for (const c of e.brokenPromises) {
      const m = e.minimalByCheck[c];
      if (m === undefined || (m.kills.join(',') === e.minimal.schedule.kills.join(',') && m.interleaving.join(',') === e.minimal.schedule.interleaving.join(','))) continue;
      lines.push(`  minimal counterexample for ${CHECK_LABELS[c]}: kill schedule ${m.kills.join(', ')} (${m.killAt.join(', ')}); replay: ${replayCommand(source, { system: e.minimal.system, schedule: { kills: m.kills, interleaving: m.interleaving } })}`);
    }
  }
  return lines.join('\n');
}

/** What a search that stopped after a hung recovery left out: counted, never judged. */
function stoppedAtHangLines(e: Exploration): string[] {
  const s = e.stoppedAtHang;
  if (s === undefined) return [];
  const more = s.notAsked.map((what) => (what === 'recoveries' ? ', nor the kill points of the recoveries' : ', nor the other interleavings')).join('');
  return [`  stopped after the earliest recovery that hung: ${s.hung} run${s.hung === 1 ? '' : 's'} hung, ${s.notExplored} later kill point${s.notExplored === 1 ? '' : 's'} not explored${more} (--all explores every one, each hang at its time limit)`];
}

/** A conversation the run never killed leaves invalid, said once rather than charged at every kill point. */
function baselineConversationLines(e: Exploration): string[] {
  if (e.baselineConversationProblem === undefined) return [];
  return [`  note: the run never killed has this conversation problem itself (${e.baselineConversationProblem}); no recovery is charged with it, only with a problem of its own`];
}

/** Where a real engine's lives ran, said once (simulated lives need no word: they are killpoint's own). */
function tierLines(e: Exploration): string[] {
  if (e.tier === 'in-process') return ['  lives: in this process, each cut off from its stores at its kill point (--tier process: a process each, killed with SIGKILL)'];
  if (e.tier === 'process') return ['  lives: a process each, killed with SIGKILL'];
  return [];
}

/** The JSON form of an exploration (no event lists; the replay command brings them back). */
export function explorationJson(e: Exploration, source: CaseSource): Record<string, unknown> {
  return {
    scenario: e.scenarioId,
    strategy: e.strategy,
    tier: e.tier,
    kills: e.kills,
    interleavings: e.interleavings,
    schedulesExplored: e.schedulesExplored,
    promised: e.promised,
    failures: e.failures,
    brokenPromises: e.brokenPromises,
    repeatsWithoutKill: e.repeatsWithoutKill.map((r) => ({ finding: repeatWithoutKillTitle(r), wait: r.wait, write: r.write, effects: [r.first, r.second] })),
    ok: !explorationFails(e),
    reduction: e.reduction,
    minimalSearch: e.minimalSearch,
    stoppedAtHang: e.stoppedAtHang ?? null,
    baselineConversationProblem: e.baselineConversationProblem ?? null,
    minimalByCheck: e.minimal === null ? {} : Object.fromEntries(Object.entries(e.minimalByCheck).map(([c, m]) => [c, { schedule: { kills: m.kills, killAt: m.killAt, interleaving: m.interleaving }, replay: replayCommand(source, { system: e.minimal!.system, schedule: { kills: m.kills, interleaving: m.interleaving } }) }])),
    minimal: e.minimal === null ? null : {
      reproduced: e.minimal.broken.length > 0,
      schedule: { kills: e.minimal.schedule.kills, killAt: killAt(e.minimal), interleaving: e.minimal.outcome.picksTaken },
      failed: e.minimal.failed,
      broken: e.minimal.broken,
      differences: differences(e.minimal.verdict),
      secondDeliveries: secondDeliveriesJson(e.minimal),
      replay: replayCommand(source, e.minimal),
    },
  };
}
