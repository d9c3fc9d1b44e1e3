// How the experiment reads: the table of moments and strategies, the details behind its counts,
// where the random kills landed, and one task as a strip of events with the chosen kill points
// marked. Only formatting: every figure comes from the runs in an ExperimentResult.

import type { RunEvent } from '../check/events.js';
import { describeEvent } from '../check/event-kinds.js';
import { CHOSEN_MOMENTS, chosenKillPoint, runsOf, type ExperimentResult, type Row } from '../chapter/experiment.js';
import { STRATEGY_NAMES, type StrategyName } from '../engines/scripted/strategies.js';
import { glyphOf } from './event-kinds.js';
import { WORDS } from './words.js';

const COLUMNS: { title: string; width: number; cell: (row: Row) => string }[] = [
  { title: 'moment', width: 11, cell: (r) => r.moment },
  { title: 'strategy', width: 13, cell: (r) => r.strategy },
  { title: 'runs', width: 4, cell: (r) => String(r.runs) },
  { title: 'model calls redone', width: 18, cell: (r) => String(r.modelCallsRedone) },
  { title: 'extra writes', width: 12, cell: (r) => String(r.extraWrites) },
  { title: 'done twice', width: 10, cell: (r) => String(r.doneTwice) },
  { title: 'refused', width: 7, cell: (r) => String(r.refused) },
  { title: 'different writes', width: 16, cell: (r) => String(r.differentWrites) },
  { title: 'same answer', width: 11, cell: (r) => `${r.sameAnswer}/${r.killed}` },
];

/** One line of the table: each column's cell, the first two padded on the right, the rest on the left. */
function line(cellOf: (column: (typeof COLUMNS)[number]) => string): string {
  return COLUMNS.map((column, i) => (i < 2 ? cellOf(column).padEnd(column.width) : cellOf(column).padStart(column.width))).join('  ').trimEnd();
}

function counted(counts: Record<string, number>): string {
  return Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${n} ${k}`).join(', ');
}

export function formatTable(result: ExperimentResult): string {
  const out = [line((c) => c.title), line((c) => '-'.repeat(c.width))];
  for (const row of result.rows) out.push(line((c) => c.cell(row)));
  const withoutWrite = runsOf(result, 'after-write', 'journal').filter((r) => r.killPoint === null).map((r) => r.scenarioId);
  out.push('');
  out.push('same answer: killed runs whose answer equals the baseline\'s, byte for byte.');
  out.push(`after-write: ${withoutWrite.length} tasks never write (${withoutWrite.join(', ')}); their run there is the baseline, not killed.`);
  return out.join('\n');
}

/** What the counts are made of: writes sent again, refusals by reason, different writes by kind. */
export function formatDetails(result: ExperimentResult): string {
  const out = ['details (writes sent again; repeats refused by reason; different writes by kind):'];
  for (const row of result.rows) {
    if (row.sentAgain === 0 && row.refused === 0 && row.differentWrites === 0) continue;
    const parts = [`sent again ${row.sentAgain}`];
    if (row.refused > 0) parts.push(`refused ${counted(row.refusedBy)}`);
    if (row.differentWrites > 0) parts.push(`different ${counted(row.differentBy)}`);
    out.push(`  ${row.moment.padEnd(11)}  ${row.strategy.padEnd(13)}  ${parts.join('; ')}`);
  }
  return out.join('\n');
}

/** Where the random kills landed, against the chapter's 176 of 210 waiting and 8 inside a write tool. */
export function formatLandings(result: ExperimentResult): string {
  const total = { runs: 0, waiting: 0, model: 0, tool: 0, writeBeforeCommit: 0, gap: 0, other: 0 };
  for (const row of result.rows) {
    if (!row.landed) continue;
    total.runs += row.runs;
    for (const key of ['waiting', 'model', 'tool', 'writeBeforeCommit', 'gap', 'other'] as const) total[key] += row.landed[key];
  }
  return [
    `random kills (seed "${result.seed}"): ${total.runs}`,
    `  waiting on the model or a tool: ${total.waiting} of ${total.runs} (model ${total.model}, read tool ${total.tool}, write tool before its commit ${total.writeBeforeCommit}); chapter: 176 of 210, 8 inside the refund tool`,
    `  in the gap after a commit: ${total.gap}; elsewhere (the agent's own work): ${total.other}`,
  ].join('\n');
}

/** A word the glossary defines (a missing one is a bug in the glossary). */
function wordMeaning(word: string): string {
  const entry = WORDS.find((w) => w.word === word);
  if (entry === undefined) throw new Error(`the glossary has no word "${word}"`);
  return entry.meaning;
}

/** One task's baseline as a strip of events (a space before each model call), chosen kill points marked under it. */
export function formatStrip(result: ExperimentResult, scenarioId: string, strategy: StrategyName = 'journal'): string {
  const baseline = result.baselines.get(scenarioId)?.get(strategy);
  if (!baseline) throw new Error(`no baseline for ${scenarioId} under ${strategy}`);
  const events: RunEvent[] = baseline.lives[0]!.events;
  const marks = CHOSEN_MOMENTS.flatMap((moment, i) => {
    const k = chosenKillPoint(moment, events);
    return k === null ? [] : [{ label: String(i + 1), moment, event: events[k]! }];
  });
  let strip = '';
  let under = '';
  for (const e of events) {
    if (e.kind === 'model-request' && e.index > 0) {
      strip += ' ';
      under += ' ';
    }
    strip += glyphOf(e.kind) ?? '•';
    under += marks.find((m) => m.event.index === e.index)?.label ?? ' ';
  }
  const last = events.at(-1);
  if (last === undefined) throw new Error(`the baseline of ${scenarioId} under ${strategy} has no events`);
  const out = [
    `${scenarioId}${scenarioId === 'T01' ? ` (Dana's task: ${wordMeaning("Dana's task").replace(/^T01, the running example: /, '')})` : ''} under ${strategy}: ${events.length} events, ${last.atMs.toFixed(2)} ms of virtual time; a kill lands right after the marked event`,
    `  ${strip}`,
    `  ${under.trimEnd()}`,
  ];
  for (const m of marks) {
    out.push(`  ${m.label} ${m.moment.padEnd(11)} after event ${String(m.event.index).padStart(2)} at ${m.event.atMs.toFixed(2).padStart(7)} ms: ${describeEvent(m.event)}`);
  }
  out.push('  > model request  ~ reply chunk  | reply complete  ( tool start  $ shop commit  ) tool result  w journal written  s journal saved  ! answer delivered');
  return out.join('\n');
}

export function formatExperiment(result: ExperimentResult, stripTask: string): string {
  return [
    `killpoint experiment: ${result.baselines.size} tasks x ${STRATEGY_NAMES.length} ways to recover x 6 kills = ${result.runs.length} runs`,
    // For a reader who has not read the chapter: what its words name (said once, in words.ts).
    ...WORDS.filter((w) => w.word === 'the chapter' || w.word === 'Lantern').map((w) => `  ${w.word}: ${w.meaning}`),
    '',
    formatTable(result),
    '',
    formatDetails(result),
    '',
    formatLandings(result),
    '',
    formatStrip(result, stripTask),
    '',
  ].join('\n');
}

/** The experiment as JSON: one row per moment and strategy, one verdict per run. */
export function experimentJson(result: ExperimentResult): string {
  const rows = result.rows.map((r) => ({
    moment: r.moment,
    strategy: r.strategy,
    runs: r.runs,
    modelCallsRedone: r.modelCallsRedone,
    extraWrites: r.extraWrites,
    doneTwice: r.doneTwice,
    refused: r.refused,
    differentWrites: r.differentWrites,
    sameAnswer: r.sameAnswer,
    killed: r.killed,
    sentAgain: r.sentAgain,
    refusedBy: r.refusedBy,
    differentBy: r.differentBy,
    ...(r.landed ? { landed: r.landed } : {}),
  }));
  const tasks = result.runs.map((r) => ({
    task: r.scenarioId,
    moment: r.moment,
    strategy: r.strategy,
    draw: r.draw,
    killPoint: r.killPoint,
    killAtMs: r.killAtMs,
    landed: r.landed,
    verdict: r.verdict,
  }));
  return `${JSON.stringify({ seed: result.seed, rows, tasks }, null, 2)}\n`;
}
