// The HTML report of `killpoint estimate`: for each scenario, its run's time as a bar to scale,
// coloured by what the agent was doing (so the share of random kills of each kind is the share of
// the bar), the window random kills are drawn from, and the gap: drawn to scale (a hairline at
// best) and again magnified around the first commit, with the factor printed.

import type { IntervalKind, RunEvent } from '../check/events.js';
import { INTERVAL_KINDS, type RunEstimate, type SetEstimate } from '../chapter/estimator.js';
import { WORDS } from './words.js';
import { esc, page } from './html.js';

export const INTERVAL_COLOURS: Record<IntervalKind, string> = {
  model: '#6b7a8f',
  tool: '#9a8c5b',
  'write-before-commit': '#e0a030',
  gap: '#d62728',
  other: '#9ec9a6',
};

const INTERVAL_LABELS: Record<IntervalKind, string> = {
  model: 'waiting on the model',
  tool: 'waiting on a read tool',
  'write-before-commit': 'inside a write, before its commit',
  gap: 'the gap (committed, not yet saved)',
  other: "the agent's own work",
};

const CSS = `
.run{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:8px 12px;margin:10px 0}
.bar{position:relative;height:26px;background:#eee;margin:6px 0 2px;overflow:hidden}
.seg{position:absolute;top:0;bottom:0}
.win{position:absolute;top:-2px;bottom:-2px;border-left:2px dashed #000;border-right:2px dashed #000;pointer-events:none}
.gapmark{position:absolute;top:-4px;bottom:-4px;width:1px;background:#d62728}
.zoom{position:relative;height:26px;background:#eee;margin:4px 0;overflow:hidden}
.zoomnote{font-size:12.5px;color:#444}
.shares{font-size:12.5px}
`;

/** What the process was doing over time: one segment per event's interval. */
function segments(events: readonly RunEvent[]): { fromMs: number; toMs: number; kind: IntervalKind }[] {
  const segs: { fromMs: number; toMs: number; kind: IntervalKind }[] = [];
  for (const [i, e] of events.entries()) {
    const fromMs = i === 0 ? 0 : events[i - 1]!.atMs;
    if (e.atMs <= fromMs) continue;
    // Consecutive intervals of one kind are one stretch (a gap runs from the commit to the save).
    const last = segs.at(-1);
    if (last !== undefined && last.kind === e.interval && last.toMs === fromMs) last.toMs = e.atMs;
    else segs.push({ fromMs, toMs: e.atMs, kind: e.interval });
  }
  return segs;
}

const pct = (x: number): string => `${(x * 100).toFixed(6)}%`;

function bar(segs: ReturnType<typeof segments>, fromMs: number, toMs: number, cls: string): string {
  const span = toMs - fromMs;
  return `<div class="${cls}">${segs.filter((s) => s.toMs > fromMs && s.fromMs < toMs).map((s) => {
    const a = Math.max(s.fromMs, fromMs);
    const b = Math.min(s.toMs, toMs);
    return `<div class="seg" data-kind="${s.kind}" style="left:${pct((a - fromMs) / span)};width:${pct((b - a) / span)};background:${INTERVAL_COLOURS[s.kind]}" title="${esc(`${INTERVAL_LABELS[s.kind]}: ${(b - a).toFixed(3)} ms`)}"></div>`;
  }).join('')}</div>`;
}

function runHtml(id: string, title: string, events: readonly RunEvent[], e: RunEstimate): string {
  const segs = segments(events);
  const d = e.durationMs;
  const gaps = segs.filter((s) => s.kind === 'gap');
  const gapMarks = gaps.map((g) => `<div class="gapmark" style="left:${pct(g.fromMs / d)}" title="${esc(`a gap of ${(g.toMs - g.fromMs).toFixed(3)} ms at ${g.fromMs.toFixed(2)} ms`)}"></div>`).join('');
  const full = bar(segs, 0, d, 'bar').replace(/<\/div>$/, `<div class="win" style="left:${pct(e.windowStartMs / d)};width:${pct((e.windowEndMs - e.windowStartMs) / d)}"></div>${gapMarks}</div>`);
  let zoom = '<p class="zoomnote">No write, so no gap: a random kill never finds one here.</p>';
  const first = gaps[0];
  if (first !== undefined) {
    const width = first.toMs - first.fromMs;
    // The gap takes a fifth of the magnified view, centred.
    const viewMs = width * 5;
    const from = first.fromMs - width * 2;
    const factor = d / viewMs;
    zoom = `<p class="zoomnote">The first gap, ${width.toFixed(3)} ms wide, is ${(width / d * 100).toPrecision(3)}% of the run: to scale above, it is thinner than a pixel (the red hairlines mark where the gaps are). Magnified ${Math.round(factor).toLocaleString('en-US')} times, ${from.toFixed(3)}..${(from + viewMs).toFixed(3)} ms:</p>${bar(segs, from, from + viewMs, 'zoom')}`;
  }
  const shares = INTERVAL_KINDS.map((k) => `<span><span class="sw" style="background:${INTERVAL_COLOURS[k]}"></span> ${esc(INTERVAL_LABELS[k])} ${(e.probability[k] * 100).toPrecision(3)}%</span>`).join(' &nbsp; ');
  const hit = Number.isFinite(e.expectedKillsPerHit) ? `1 in ${Math.round(e.expectedKillsPerHit).toLocaleString('en-US')}` : 'never';
  return `<section class="run" data-scenario="${esc(id)}">
<h3>${esc(id)}: ${esc(title)}</h3>
<div class="zoomnote">${d.toFixed(2)} ms run, ${e.writes} write${e.writes === 1 ? '' : 's'}; a random kill (between the dashed lines) finds the gap ${hit}.</div>
${full}
<div class="shares">${shares}</div>
${zoom}
</section>`;
}

export function estimateReportHtml(set: SetEstimate, runs: readonly { id: string; title: string; events: readonly RunEvent[] }[], gapLabel: string): string {
  const sections = set.runs.map((r, i) => runHtml(r.id, runs[i]!.title, runs[i]!.events, r.estimate)).join('\n');
  const shares = INTERVAL_KINDS.map((k) => `<tr data-kind="${k}"><td class="l"><span class="sw" style="background:${INTERVAL_COLOURS[k]}"></span> ${esc(INTERVAL_LABELS[k])}</td><td>${(set.probability[k] * 100).toPrecision(4)}%</td></tr>`).join('');
  const body = `<h1>killpoint estimate: where random kills land</h1>
<p class="lead">Each run is the scenario's baseline under the journal strategy (gap: ${esc(gapLabel)}). A random kill strikes at a uniformly random moment between 5% and 95% of the run; it lands in whatever the agent was doing then. The share of each colour in a bar is the chance a random kill lands there.</p>
<dl class="words">${WORDS.map((w) => `<div><dt>${esc(w.word)}</dt>: <dd>${esc(w.meaning)}</dd></div>`).join('')}</dl>
<h2>All ${set.runs.length} scenarios: share of random kills</h2>
<table id="shares"><tbody>${shares}</tbody></table>
<p class="lead">${set.killsPerTask} random kills per task, ${set.randomKills} in all: ${(set.noGapChance * 100).toFixed(2)}% chance that none finds a gap; ${set.aimedKills} aimed kills (one right after each write) find every gap.</p>
<h2>Each run, to scale</h2>
${sections}`;
  return page({ title: 'killpoint estimate report', css: CSS, body, data: { kind: 'estimate', probability: set.probability, runs: set.runs.map((r) => ({ id: r.id, probability: r.estimate.probability, durationMs: r.estimate.durationMs, gapWidthsMs: r.estimate.gapWidthsMs })) } });
}
