// The HTML report of `killpoint check`: a strip per scenario and system, each kill point a cell
// coloured by its verdict; hovering shows a kill point's explanation and replay command, a click
// pins it; the minimal counterexample is marked with a star.

import { CHECK_LABELS, type CheckName } from '../check/checks.js';
import { glyphLegend, glyphOf } from './event-kinds.js';
import { PROMISE_NOTE, WORDS } from './words.js';
import type { CheckReportData, Strip } from './check-data.js';
import { esc, page } from './html.js';
import { VERDICT_CLASSES, VERDICT_COLOURS, VERDICT_LABELS, type VerdictClass } from './verdict-class.js';

const labels = (checks: readonly CheckName[]): string => checks.map((c) => CHECK_LABELS[c]).join(', ');

function glyph(kind: string | undefined): string {
  if (kind === undefined) return '·';
  return glyphOf(kind) ?? '•';
}

const CSS = `
.strip{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:8px 12px;margin:8px 0}
.strip h3{margin:0 0 2px;display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.status{font-weight:600;padding:0 6px;border-radius:3px}
.status.ok{background:#e3f4e8;color:#1b6b38}
.status.fail{background:#fde3e3;color:#a11}
.promise,.explored{margin:2px 0;color:#444;font-size:13px}
.counts{display:flex;flex-wrap:wrap;gap:4px 12px;margin:4px 0}
.counts span{display:inline-flex;align-items:center;gap:4px;font-size:12.5px}
.cells{display:flex;flex-wrap:wrap;gap:2px;margin:8px 0 4px;padding-top:10px}
.kp{position:relative;width:16px;height:24px;border:0;border-radius:2px;padding:0;cursor:pointer;color:#fff;font:11px/24px ui-monospace,monospace;text-align:center}
.kp.turn{margin-left:8px}
.kp.broken{box-shadow:inset 0 -4px 0 rgba(0,0,0,.55)}
.kp.minimal{outline:2px solid #000;outline-offset:1px;z-index:1}
.kp.minimal::before{content:"\\2605";position:absolute;top:-15px;left:2px;color:#000;font-size:12px;line-height:12px}
.kp:focus-visible,.kp.selected{outline:3px solid #ffbf00;outline-offset:1px;z-index:2}
.minimal-line{margin:4px 0;font-size:13px}
#detail{position:fixed;left:0;right:0;bottom:0;background:#1d1d1f;color:#f4f4f4;padding:10px 22px;min-height:120px;max-height:45vh;overflow:auto;box-shadow:0 -2px 8px rgba(0,0,0,.3)}
#detail .head{font-weight:600}
#detail ul{margin:4px 0;padding-left:20px}
#detail code{color:#fff;background:#333;padding:2px 6px;border-radius:3px;user-select:all}
#detail button{margin-left:8px}
#detail .hint{color:#bbb}
${VERDICT_CLASSES.map((v) => `.v-${v}{background:${VERDICT_COLOURS[v]}}`).join('\n')}
`;

const SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('killpoint-data').textContent);
  var labels = ${JSON.stringify({ ...VERDICT_LABELS })};
  var checkLabels = ${JSON.stringify(CHECK_LABELS)};
  var detail = document.getElementById('detail');
  var pinned = null;
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function show(button) {
    var strip = data.strips[Number(button.dataset.strip)];
    var cell = strip.killPoints[Number(button.dataset.i)];
    detail.textContent = '';
    var what = cell.k < 0 ? 'before the first event' : 'right after event ' + cell.k + ': ' + cell.event.label + (cell.event.atMs === null ? '' : ' (at ' + cell.event.atMs.toFixed(2) + ' ms)');
    detail.appendChild(el('div', 'head', strip.scenario + ' under ' + strip.system + ', kill point ' + cell.k + ' (' + cell.identity + '), ' + what));
    var verdict = cell.verdict === 'survived' ? 'survived: every check holds' :
      'fails: ' + cell.failed.map(function (c) { return checkLabels[c] + (strip.promised.indexOf(c) >= 0 ? ' (promised: breaks a promise)' : ' (not promised)'); }).join(', ');
    detail.appendChild(el('div', 'verdict', (cell.minimal ? '\\u2605 minimal counterexample. ' : '') + verdict));
    if (cell.differences.length > 0) {
      var ul = el('ul', 'differences');
      cell.differences.forEach(function (d) { ul.appendChild(el('li', '', d)); });
      detail.appendChild(ul);
    }
    var line = el('div', 'replay-line', 'replay: ');
    var code = el('code', '', cell.replay);
    code.id = 'replay';
    line.appendChild(code);
    var copy = el('button', '', 'copy');
    copy.type = 'button';
    copy.onclick = function () { if (navigator.clipboard) navigator.clipboard.writeText(cell.replay); };
    line.appendChild(copy);
    detail.appendChild(line);
    detail.dataset.strip = button.dataset.strip;
    detail.dataset.k = String(cell.k);
  }
  document.querySelectorAll('.kp').forEach(function (b) {
    b.addEventListener('mouseenter', function () { if (pinned === null) show(b); });
    b.addEventListener('focus', function () { if (pinned === null) show(b); });
    b.addEventListener('click', function () {
      if (pinned) pinned.classList.remove('selected');
      pinned = b;
      b.classList.add('selected');
      show(b);
    });
  });
})();
`;

function swatch(v: VerdictClass): string {
  return `<span class="sw v-${v}"></span>`;
}

function stripHtml(s: Strip, index: number): string {
  const e = s.exploration;
  const failures = (Object.entries(e.failures) as [CheckName, number][])
    .map(([c, n]) => `${CHECK_LABELS[c]} ${n}${s.promised.includes(c) ? '' : ' (not promised)'}`);
  const repeats = e.repeatsWithoutKill ?? [];
  const ok = e.brokenPromises.length === 0 && repeats.length === 0;
  const found = [...(e.brokenPromises.length > 0 ? [`breaks ${labels(e.brokenPromises)}`] : []), ...(repeats.length > 0 ? ['done twice without any kill'] : [])];
  const status = ok ? '<span class="status ok">ok: every promised check holds</span>' : `<span class="status fail">FAIL: ${esc(found.join('; '))}</span>`;
  // Told apart from the strip: no kill point shows it, every one is judged against the run that does it.
  const withoutKill = repeats.map((lines) => `<p class="minimal-line"><b>${esc(lines[0] ?? '')}</b><br>${lines.slice(1).map(esc).join('<br>')}</p>`).join('\n');
  const counts = (Object.entries(s.counts) as [VerdictClass, number][])
    .map(([v, n]) => `<span data-verdict="${v}" data-count="${n}">${swatch(v)}${esc(VERDICT_LABELS[v])} ${n}</span>`).join('');
  const cells = s.killPoints.map((c, i) => {
    const classes = ['kp', `v-${c.verdict}`];
    if (c.event?.kind === 'model-request' && c.k > 0) classes.push('turn');
    if (c.broken.length > 0) classes.push('broken');
    if (c.minimal) classes.push('minimal');
    const title = `kill point ${c.k} (${c.identity}): ${c.event?.label ?? 'before the first event'}; ${VERDICT_LABELS[c.verdict]}`;
    return `<button type="button" class="${classes.join(' ')}" data-strip="${index}" data-i="${i}" data-k="${c.k}" data-verdict="${c.verdict}" title="${esc(title)}" aria-label="${esc(title)}">${esc(glyph(c.event?.kind))}</button>`;
  }).join('');
  const m = e.minimal;
  let minimal = '';
  if (m !== null) {
    const onStrip = s.killPoints.some((c) => c.minimal);
    const where = onStrip ? 'marked \u2605 on the strip' : `not on this strip (${m.kills.length > 1 ? 'a kill during the recovery' : 'another order of the parallel calls'})`;
    minimal = `<p class="minimal-line">${m.reproduced ? '' : '<b>NOT REPRODUCED</b> (it broke no promise when run again). '}minimal counterexample: kill schedule ${esc(m.kills.join(', '))} (${esc(m.killAt.join(', '))}), breaks ${esc(labels(m.broken))}; ${where}. replay: <code>${esc(m.replay)}</code></p>`;
  }
  return `<section class="strip" data-scenario="${esc(s.scenario)}" data-engine="${esc(s.engine)}" data-system="${esc(s.system)}" data-strip="${index}">
<h3><span>${esc(s.system)}</span> ${status}</h3>
<p class="promise">Promised at every kill point: ${esc(labels(s.promised)) || 'nothing'}. Not promised (counted, shown, never failed): ${esc(labels(s.notPromised)) || 'nothing'}.</p>
<p class="explored">${e.schedulesExplored} schedules explored (up to ${e.kills} kill${e.kills === 1 ? '' : 's'}, ${e.interleavings} interleaving${e.interleavings === 1 ? '' : 's'}${e.exhaustive ? ', all' : ', a seeded sample'}); failures: ${esc(failures.join(', ')) || 'none'}. The strip shows the ${s.killPoints.length} single kills of the default order:</p>
<div class="counts">${counts}</div>
<div class="cells">${cells}</div>
${withoutKill}
${minimal}
</section>`;
}

export function checkReportHtml(data: CheckReportData): string {
  const byScenario = new Map<string, { title: string; blocks: string[] }>();
  data.strips.forEach((s, i) => {
    const entry = byScenario.get(s.scenario) ?? { title: s.title, blocks: [] };
    entry.blocks.push(stripHtml(s, i));
    byScenario.set(s.scenario, entry);
  });
  const failing = data.strips.filter((s) => s.exploration.brokenPromises.length > 0 || (s.exploration.repeatsWithoutKill ?? []).length > 0).length;
  const legend = VERDICT_CLASSES.map((v) => `<span>${swatch(v)}${esc(VERDICT_LABELS[v])}</span>`).join('');
  const drawn = data.strips.flatMap((s) => s.killPoints.flatMap((c) => (c.event === null ? [] : [c.event.kind])));
  const glyphs = glyphLegend(drawn).map(({ kind, glyph: g, meaning }) => `<span title="${esc(meaning)}"><b class="mono">${esc(g)}</b> ${esc(kind)}</span>`).join('');
  const body = `<h1>killpoint check</h1>
<p class="lead">${data.strips.length} scenario and system pair${data.strips.length === 1 ? '' : 's'}: ${failing === 0 ? 'every promised check holds' : `${failing} broke a promised check`}. Each cell is a kill point: the run is killed right after that event (the first cell: before anything), a recovery resumes it, and the result is compared with the baseline. The colour is the verdict; a dark bar under a cell means it breaks a promise; \u2605 marks the minimal counterexample. Hover a cell for its explanation and the command that replays it; click to keep it.</p>
<p class="lead">${esc(PROMISE_NOTE)}.</p>
<div class="legend">${legend}</div>
<div class="legend">${glyphs}</div>
<dl class="words">${WORDS.map((w) => `<div><dt>${esc(w.word)}</dt>: <dd>${esc(w.meaning)}</dd></div>`).join('')}</dl>
${[...byScenario.entries()].map(([id, { title, blocks }]) => `<h2>${esc(id)}: ${esc(title)}</h2>\n${blocks.join('\n')}`).join('\n')}
<aside id="detail" aria-live="polite"><span class="hint">Hover or click a kill point to see what happened there and the command that replays it.</span></aside>`;
  return page({ title: 'killpoint check report', css: CSS, body, data, script: SCRIPT });
}
