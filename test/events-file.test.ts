// A harness's events file is read line by line, never whole: a runaway harness can write one of
// any size (over 512 MB it would not even fit in one JavaScript string). Past the bound on events
// per life, or a line too long to be an event, reading stops with an error naming the life and the
// line, and `killpoint harness` exits 2 on it.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_EVENTS_PER_LIFE } from '../src/harness/life-loop.js';
import { MAX_EVENT_LINE_BYTES, readEvents } from '../src/harness/process/protocol.js';
import { PROJECT_ROOT } from '../src/model/load.js';

const dir = mkdtempSync(join(tmpdir(), 'killpoint-events-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (index: number, extra = '') => `{"index":${index},"kind":"tool-start"${extra}}\n`;

describe('reading an events file', () => {
  it('reads every line across chunk boundaries, multi-byte text included', () => {
    const file = join(dir, 'long.jsonl');
    // About 3 MB in 40,000 lines: many 1 MiB chunks, lines cut at their edges, a character of three bytes.
    writeFileSync(file, Array.from({ length: 40_000 }, (_, i) => line(i, `,"note":"caf\u00e9 \u2014 ${'x'.repeat(i % 90)}"`)).join(''));
    const events = readEvents(file, 'life 1');
    expect(events).toHaveLength(40_000);
    expect(events[39_999]).toMatchObject({ index: 39_999, kind: 'tool-start' });
    expect((events[12_345] as unknown as { note: string }).note).toBe(`caf\u00e9 \u2014 ${'x'.repeat(12_345 % 90)}`);
  });

  it('stops past the bound on events per life, naming the life and the line', () => {
    const file = join(dir, 'runaway.jsonl');
    writeFileSync(file, Array.from({ length: MAX_EVENTS_PER_LIFE + 5 }, (_, i) => line(i)).join(''));
    expect(() => readEvents(file, 'life 2')).toThrow(`life 2: more than ${MAX_EVENTS_PER_LIFE} events in KILLPOINT_EVENTS (line ${MAX_EVENTS_PER_LIFE + 1})`);
  });

  it('stops at a line too long to be an event, without reading it whole', () => {
    const file = join(dir, 'one-line.jsonl');
    writeFileSync(file, line(0) + 'y'.repeat(3 * MAX_EVENT_LINE_BYTES));
    expect(() => readEvents(file, 'life 1')).toThrow(`life 1: line 2 of its events (KILLPOINT_EVENTS) is longer than ${MAX_EVENT_LINE_BYTES} bytes`);
  });

  it('killpoint harness on a harness that floods its events file: exit 2, naming the bound', () => {
    const flood = join(dir, 'flood.sh');
    writeFileSync(flood, `#!/bin/sh\nawk 'BEGIN { for (i = 0; i < ${MAX_EVENTS_PER_LIFE + 10}; i++) printf "{\\"index\\":%d,\\"kind\\":\\"tool-start\\"}\\n", i }' >> "$KILLPOINT_EVENTS"\n`, { mode: 0o755 });
    const r = spawnSync(process.execPath, ['bin/killpoint.mjs', 'harness', '--', flood], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`more than ${MAX_EVENTS_PER_LIFE} events`));
  }, 120_000);
});
