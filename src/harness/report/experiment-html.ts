// The HTML report of `killpoint experiment`: the chapter's table (moment x way to recover), where
// its random kills landed, and Dana's task as a strip of events with the chosen kill points marked
// and, under each, how every way to recover fared there. Every figure comes from the runs.

import type { RunEvent } from '../check/events.js';
import { describeEvent } from '../check/event-kinds.js';
import type { CheckName } from '../check/checks.js';
import type { Verdict } from '../check/verdict.js';
import { CHOSEN_MOMENTS, chosenKillPoint, type ExperimentResult } from '../chapter/experiment.js';
import { WORDS } from './words.js';
import { STRATEGY_NAMES } from '../engines/scripted/strategies.js';
import type { Scenario } from '../../model/scenario.js';
import { esc, page } from './html.js';
import { VERDICT_COLOURS, VERDICT_LABELS, verdictClass } from './verdict-class.js';
import { glyphOf, KIND_COLOURS, kindGroup } from './event-kinds.js';

const CSS = `
.cells{display:flex;flex-wrap:wrap;gap:2px;margin:22px 0 6px}
.ev{position:relative;width:16px;height:24px;border-radius:2px;color:#fff;font:11px/24px ui-monospace,monospace;text-align:center}
.ev.turn{margin-left:8px}
.ev.chosen{outline:2px solid #000;outline-offset:1px}
.ev .mark{position:absolute;top:-19px;left:0;right:0;color:#000;font-weight:700;font:700 12px/14px system-ui}
td.v{color:#fff;font-weight:600;text-align:center}
`;

function verdictCell(run: ExperimentResult['runs'][number] | undefined): string {
  if (run === undefined) return '<td></td>';
  const v = run.killPoint === null ? 'survived' : verdictClass(checksFromVerdict(run.verdict));
  return `<td class="v" style="background:${VERDICT_COLOURS[v]}" data-verdict="${v}">${esc(VERDICT_LABELS[v])}</td>`;
}

/**
 * The checks a verdict shows failing on its own. The experiment keeps verdicts, not whole runs, so
 * the checks that need the run (a write lost without being sent, half an answer acted on) are not
 * drawn here; `killpoint check` draws them.
 */
function checksFromVerdict(v: Verdict): CheckName[] {
  const failed: CheckName[] = [];
  if (v.doneTwice.length > 0) failed.push('done-twice');
  if (v.refusedTotal > 0) failed.push('refused-repeat');
  if (v.differentWrites.length > 0) failed.push('different-write');
  if (!v.sameAnswer) failed.push('different-answer');
  if (!v.conversationValid || v.recoveryError !== null) failed.push('invalid-conversation');
  if (v.answersDelivered > 1) failed.push('answer-twice');
  return failed;
}

export function experimentReportHtml(result: ExperimentResult, stripTask: string, scenarios: readonly Scenario[]): string {
  const scenario = scenarios.find((s) => s.id === stripTask);
  const columns = ['moment', 'strategy', 'runs', 'model calls redone', 'extra writes', 'done twice', 'refused', 'different writes', 'same answer'];
  const rows = result.rows.map((r) => `<tr data-moment="${r.moment}" data-strategy="${r.strategy}"><td>${r.moment}</td><td class="l">${r.strategy}</td><td>${r.runs}</td><td>${r.modelCallsRedone}</td><td>${r.extraWrites}</td><td>${r.doneTwice}</td><td>${r.refused}</td><td>${r.differentWrites}</td><td>${r.sameAnswer}/${r.killed}</td></tr>`).join('\n');
  const baseline = result.baselines.get(stripTask)?.get('journal');
  const events: RunEvent[] = baseline?.lives[0]?.events ?? [];
  const marks = CHOSEN_MOMENTS.map((moment, i) => ({ moment, label: String(i + 1), k: chosenKillPoint(moment, events) }));
  const cells = events.map((e) => {
    const mark = marks.find((m) => m.k === e.index);
    const title = `event ${e.index} at ${e.atMs.toFixed(2)} ms: ${describeEvent(e)}${mark ? ` (chosen kill: ${mark.moment})` : ''}`;
    return `<span class="ev${e.kind === 'model-request' && e.index > 0 ? ' turn' : ''}${mark ? ' chosen' : ''}" style="background:${KIND_COLOURS[kindGroup(e.kind)]}" data-k="${e.index}" title="${esc(title)}">${mark ? `<span class="mark">${mark.label}</span>` : ''}${esc(glyphOf(e.kind) ?? '•')}</span>`;
  }).join('');
  // How each way to recover fared at Dana's chosen kill points (the rows' verdicts, one run each).
  // The checks read the verdict only here (a lost write needs the run, which the experiment does
  // not keep): a run is coloured by its first failing check among those the verdict shows.
  const fared = marks.map((m) => `<tr><td>${m.label} ${m.moment}${m.k === null ? '' : ` (after event ${m.k})`}</td>${STRATEGY_NAMES.map((st) => verdictCellOf(result, stripTask, m.moment, st)).join('')}</tr>`).join('\n');
  const landed = { runs: 0, model: 0, tool: 0, writeBeforeCommit: 0, gap: 0, other: 0 };
  for (const r of result.rows) {
    if (!r.landed) continue;
    landed.runs += r.runs;
    landed.model += r.landed.model;
    landed.tool += r.landed.tool;
    landed.writeBeforeCommit += r.landed.writeBeforeCommit;
    landed.gap += r.landed.gap;
    landed.other += r.landed.other;
  }
  const body = `<h1>killpoint experiment: the chapter's table</h1>
<p class="lead">${result.baselines.size} Lantern tasks x ${STRATEGY_NAMES.length} ways to recover x 6 kills = ${result.runs.length} runs (seed "${esc(result.seed)}"). Chosen moments: halfway through the first reply, halfway through the answer, right after the first write commits; then 3 random kills per task.</p>
<dl class="words">${WORDS.map((w) => `<div><dt>${esc(w.word)}</dt>: <dd>${esc(w.meaning)}</dd></div>`).join('')}</dl>
<h2>The table</h2>
<table id="chapter-table"><thead><tr>${columns.map((c, i) => `<th${i < 2 ? ' class="l"' : ''}>${c}</th>`).join('')}</tr></thead><tbody>
${rows}
</tbody></table>
<p class="lead">same answer: killed runs whose answer equals the baseline's, byte for byte.</p>
<h2>Where the random kills landed</h2>
<p class="lead" id="landings">${landed.runs} random kills: waiting on the model ${landed.model}, on a read tool ${landed.tool}, inside a write tool before its commit ${landed.writeBeforeCommit}; in the gap after a commit ${landed.gap}; the agent's own work ${landed.other}. Chapter: 176 of 210 while waiting, 8 inside the refund tool.</p>
<h2>${esc(stripTask)}${scenario ? `: ${esc(scenario.title)}` : ''} (Dana's task), under journal</h2>
<p class="lead">${events.length} events of the baseline in order; a kill lands right after the marked event. Colours: ${Object.entries(KIND_COLOURS).map(([k, c]) => `<span class="sw" style="background:${c}"></span> ${esc(k)}`).join(', ')}.</p>
<div class="cells" id="dana-strip">${cells}</div>
<table id="dana-fared"><thead><tr><th class="l">chosen kill</th>${STRATEGY_NAMES.map((s) => `<th>${s}</th>`).join('')}</tr></thead><tbody>
${fared}
</tbody></table>`;
  return page({ title: 'killpoint experiment report', css: CSS, body, data: { kind: 'experiment', seed: result.seed, rows: result.rows, strip: { task: stripTask, events: events.map((e) => ({ k: e.index, kind: e.kind, atMs: e.atMs })), marks } } });

  function verdictCellOf(r: ExperimentResult, task: string, moment: string, strategy: string): string {
    const run = r.runs.find((x) => x.scenarioId === task && x.moment === moment && x.strategy === strategy);
    return verdictCell(run);
  }
}
