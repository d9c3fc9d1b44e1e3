// The HTML reports, opened in a real browser (headless Chromium driven by playwright-core, no
// browser downloaded: Debian's chromium package, or KILLPOINT_CHROMIUM). The check report's
// strips, colours and counts must match the verdicts (the command's own JSON, and each kill point
// judged again here); a click on the minimal counterexample shows the command that replays it,
// and that command replays it. The screenshot lands in tmp/report.png
// (KILLPOINT_UPDATE_SCREENSHOT=1: docs/report.png, the one the README shows).

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/harness/cli/main.js';
import { engineNamed } from '../src/harness/registry.js';
import { loadScenarioFile, PROJECT_ROOT } from '../src/model/load.js';
import { judgeCase } from '../src/harness/search/explore.js';
import { VERDICT_COLOURS, verdictClass, type VerdictClass } from '../src/harness/report/verdict-class.js';
import type { CheckReportData } from '../src/harness/report/check-data.js';
import { captureConsole, runMain } from './helpers.js';

const CHROMIUM = process.env.KILLPOINT_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';
const GRACE = 'scenarios/lantern/T02-grace-refund-blocked.json';
const STRATEGIES = ['journal', 'journal+random-keys', 'restart'];

function rgb(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgb(${n >> 16}, ${(n >> 8) & 255}, ${n & 255})`;
}

const out = captureConsole();
const dir = mkdtempSync(join(tmpdir(), 'killpoint-html-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function embedded<T>(html: string): T {
  const m = /<script type="application\/json" id="killpoint-data">(.*?)<\/script>/s.exec(html);
  return JSON.parse(m![1]!) as T;
}

describe('the HTML report files', () => {
  it('are one self-contained file each: no network, no external asset', async () => {
    const path = join(dir, 'self.html');
    expect(await main(['check', DANA, '--strategy', 'journal', '--html', path])).toBe(0);
    const html = readFileSync(path, 'utf8');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'/);
    expect(embedded<CheckReportData>(html).strips).toHaveLength(1);
  });

  it('--html without a file, or with --schedule, is a usage error', async () => {
    expect(await main(['check', DANA, '--html'])).toBe(2);
    expect(await main(['check', DANA, '--html', join(dir, 'x.html'), '--schedule', '5'])).toBe(2);
    expect(await main(['check', DANA, '--html', join(dir, 'no', 'such', 'dir', 'x.html')])).toBe(2);
    expect(out.text()).toMatch(/--html: cannot write .*x\.html \(ENOENT\)/);
  });

  it('an --html file that cannot be written is refused before anything is explored (a real engine would explore for minutes first)', async () => {
    const intoAFolder = await runMain(['check', DANA, '--strategy', 'journal', '--html', dir]);
    expect(intoAFolder.status).toBe(2);
    expect(intoAFolder.out).toEqual([]);
    expect(intoAFolder.err.join('\n')).toMatch(/--html: cannot write .* \(EISDIR\)/);
    const nowhere = await runMain(['check', DANA, '--strategy', 'journal', '--html', join(dir, 'no', 'such', 'x.html')]);
    expect(nowhere.status).toBe(2);
    expect(nowhere.out).toEqual([]);
    // Nothing left behind by the proof that it can be written.
    expect(readdirSync(dir).filter((f) => f.startsWith('.killpoint-write-probe'))).toEqual([]);
  });
});

describe.skipIf(!haveChromium)(`in headless Chromium (${haveChromium ? CHROMIUM : `skipped: no browser at ${CHROMIUM}; install Debian's chromium or set KILLPOINT_CHROMIUM`})`, () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('check: every strip, colour and count matches the verdicts; a click shows the replay command, which replays it', async () => {
    const path = join(dir, 'check.html');
    out.clear();
    const status = await main(['check', DANA, GRACE, ...STRATEGIES.flatMap((s) => ['--strategy', s]), '--html', path, '--json']);
    expect(status).toBe(1); // journal+random-keys breaks its promises
    const json = JSON.parse(out.text()) as { scenario: string; strategy: string; schedulesExplored: number; failures: Record<string, number>; minimal: { replay: string } | null }[];
    await page.goto(`file://${path}`);

    const strips = await page.$$eval('section.strip', (sections) => sections.map((s) => ({
      scenario: (s as HTMLElement).dataset.scenario!,
      system: (s as HTMLElement).dataset.system!,
      cells: [...s.querySelectorAll<HTMLElement>('.kp')].map((c) => ({ k: Number(c.dataset.k), verdict: c.dataset.verdict!, colour: getComputedStyle(c).backgroundColor, broken: c.classList.contains('broken'), minimal: c.classList.contains('minimal') })),
      counts: Object.fromEntries([...s.querySelectorAll<HTMLElement>('.counts [data-verdict]')].map((c) => [c.dataset.verdict!, Number(c.dataset.count)])),
    })));
    expect(strips.map((s) => `${s.scenario} ${s.system}`)).toEqual(json.map((j) => `${j.scenario} ${j.strategy}`));
    const engine = engineNamed('scripted')!;
    for (const [i, strip] of strips.entries()) {
      const j = json[i]!;
      // Dana's and Grace's tasks make no parallel call: the single kills are the whole exploration.
      expect(strip.cells.map((c) => c.k)).toEqual(Array.from({ length: j.schedulesExplored }, (_, n) => n - 1));
      const scenario = loadScenarioFile(strip.scenario === 'T01' ? DANA : GRACE);
      const system = engine.system(strip.system)!;
      const failing: Record<string, number> = {};
      const counted: Record<string, number> = {};
      for (const cell of strip.cells) {
        // Each kill point judged again, here, without the report.
        const judged = await judgeCase(scenario, system, { kills: [cell.k], interleaving: [] });
        for (const c of judged.failed) failing[c] = (failing[c] ?? 0) + 1;
        expect(cell.verdict).toBe(verdictClass(judged.failed));
        expect(cell.colour).toBe(rgb(VERDICT_COLOURS[cell.verdict as VerdictClass]));
        expect(cell.broken).toBe(judged.broken.length > 0);
        counted[cell.verdict] = (counted[cell.verdict] ?? 0) + 1;
      }
      expect(failing).toEqual(Object.fromEntries(Object.entries(j.failures).filter(([, n]) => n > 0)));
      expect(strip.counts).toEqual(counted);
      expect(strip.cells.filter((c) => c.minimal).length).toBe(j.minimal === null ? 0 : 1);
    }

    // The failing kill point a reader clicks first: the star of Dana under random keys.
    const index = json.findIndex((j) => j.scenario === 'T01' && j.strategy === 'journal+random-keys');
    const star = page.locator(`section.strip[data-strip="${index}"] .kp.minimal`);
    await star.click();
    const replay = (await page.locator('#detail #replay').textContent())!;
    expect(replay).toBe(json[index]!.minimal!.replay);
    expect(await page.locator('#detail').textContent()).toMatch(/fails: done twice \(promised: breaks a promise\)/);
    expect(replay).toMatch(/^npx killpoint check scenarios\/lantern\/T01-dana-torn-pad\.json --strategy journal\+random-keys --schedule \d+$/);
    out.clear();
    expect(await main(replay.split(' ').slice(2))).toBe(1);
    expect(out.text()).toMatch(/shop commit +<-- KILL/);

    // A hover shows another kill point without a click keeping it.
    await page.mouse.move(0, 0);
    const shot = process.env.KILLPOINT_UPDATE_SCREENSHOT === '1' ? join(PROJECT_ROOT, 'docs', 'report.png') : join(PROJECT_ROOT, 'tmp', 'report.png');
    mkdirSync(join(shot, '..'), { recursive: true });
    await page.locator(`section.strip[data-strip="${index}"]`).scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot });
    expect(existsSync(shot)).toBe(true);
  }, 120_000);

  it('experiment: the chapter table and Dana\'s strip with its chosen kill points', async () => {
    const path = join(dir, 'experiment.html');
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { written.push(String(chunk)); return true; });
    expect(await main(['experiment', '--html', path, '--json'])).toBe(0);
    spy.mockRestore();
    const result = JSON.parse(written.join('')) as { rows: { moment: string; strategy: string; runs: number; doneTwice: number; sameAnswer: number; killed: number }[] };
    await page.goto(`file://${path}`);
    const rows = await page.$$eval('#chapter-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows.map((r) => [r[0], r[1], Number(r[2]), Number(r[5]), r[8]])).toEqual(result.rows.map((r) => [r.moment, r.strategy, r.runs, r.doneTwice, `${r.sameAnswer}/${r.killed}`]));
    const marked = await page.$$eval('#dana-strip .ev.chosen', (evs) => evs.map((e) => [(e as HTMLElement).dataset.k, e.querySelector('.mark')!.textContent]));
    // Marked where the chosen moments are in Dana's baseline (1 first reply, 2 answer, 3 after the write).
    const { strip } = JSON.parse((await page.locator('#killpoint-data').textContent())!) as { strip: { marks: { label: string; k: number }[] } };
    expect(marked.map(([k, label]) => `${label}@${k}`).sort()).toEqual(strip.marks.map((m) => `${m.label}@${m.k}`).sort());
    expect(marked).toHaveLength(3);
    expect(await page.$$eval('#dana-fared tbody tr', (trs) => trs.length)).toBe(3);
  }, 60_000);

  it('estimate: the share of each kind of interval, and every gap drawn magnified', async () => {
    const path = join(dir, 'estimate.html');
    out.clear();
    expect(await main(['estimate', '--html', path, '--json'])).toBe(0);
    const estimate = JSON.parse(out.text()) as { scenarios: { id: string; writes: number }[]; total: { probability: Record<string, number> } };
    await page.goto(`file://${path}`);
    const shares = await page.$$eval('#shares tr', (trs) => trs.map((tr) => [(tr as HTMLElement).dataset.kind, tr.querySelectorAll('td')[1]!.textContent]));
    for (const [kind, text] of shares) expect(text).toBe(`${(estimate.total.probability[kind!]! * 100).toPrecision(4)}%`);
    const runs = await page.$$eval('section.run', (ss) => ss.map((s) => ({ id: (s as HTMLElement).dataset.scenario, zoomGap: s.querySelectorAll('.zoom .seg[data-kind="gap"]').length })));
    expect(runs.map((r) => r.id)).toEqual(estimate.scenarios.map((s) => s.id));
    for (const [i, r] of runs.entries()) expect(r.zoomGap).toBe(estimate.scenarios[i]!.writes > 0 ? 1 : 0);
  }, 60_000);
});
