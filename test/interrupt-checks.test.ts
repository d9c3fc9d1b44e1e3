// Ctrl-C always ends a check: SIGINT to its process group (as a terminal sends it) ends it within a
// few seconds, by the signal, with the interrupted line, its children ended and its folders gone,
// whatever it was doing (loading, starting its threads of lives, running lives, between sessions).
// A sample of moments per engine here; `npm run interrupt` sweeps 20 moments over a whole LangGraph
// --kills 2 check.
//
// The cause it guards against: a signal is handed to its listener only when the event loop next
// polls, and a listener removed before then never hears of it. Removed as a session closed and
// added again as the next opened, in one turn, the handlers lost the Ctrl-C and the check ran on.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { endedWell, interruptCheck, interruptionLine, type Moment } from './interrupted-check.js';

async function releasedInTheSignalsTurn(mode: 'next' | 'none'): Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const parent = spawn(process.execPath, ['--import', 'tsx', join('test', 'fixtures', 'interrupt-in-release-turn.ts'), mode], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  parent.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  parent.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const signal = await new Promise<NodeJS.Signals | null>((r) => parent.on('close', (_code, s) => r(s)));
  return { signal, stdout, stderr };
}

describe('a SIGINT caught in the turn that releases what is held', () => {
  for (const mode of ['next', 'none'] as const) {
    it(`ends the parent, with its line and its folders removed (${mode === 'next' ? 'the next held in the same turn' : 'nothing held after'})`, async () => {
      const r = await releasedInTheSignalsTurn(mode);
      expect(r.stdout).not.toContain('ran on');
      expect(r.signal).toBe('SIGINT');
      expect(r.stderr).toContain('killpoint: interrupted (SIGINT)');
      const folders = [...r.stdout.matchAll(/folder (\S+)/g)].map((m) => m[1]!);
      expect(folders.length).toBeGreaterThan(0);
      expect(folders.filter((f) => existsSync(f))).toEqual([]);
    });
  }
});

/** Each engine's check in process, at its sample of moments. */
const SAMPLES: { args: string[]; moments: Moment[] }[] = [
  {
    args: ['check', '--engine', 'langgraph', '--strategy', 'react/sync', '--kills', '2'],
    // Loading, the command starting, the first session and its threads of lives starting, lives running.
    moments: [{ afterStartMs: 1_000 }, { afterStartMs: 2_500 }, { afterFirstFolderMs: 0 }, { afterFirstFolderMs: 300 }, { afterFirstFolderMs: 1_500 }, { afterFirstFolderMs: 4_000 }],
  },
  { args: ['check', '--engine', 'dbos', '--strategy', 'pglite/workflow'], moments: [{ afterFirstFolderMs: 1_000 }] },
  { args: ['check', '--engine', 'vercel-workflow', '--strategy', 'durable-agent'], moments: [{ afterFirstFolderMs: 500 }] },
  { args: ['check', '--engine', 'restate', '--strategy', 'service'], moments: [{ afterStartMs: 1_500 }, { afterFirstFolderMs: 1_000 }] },
];

describe('Ctrl-C to a check in process', () => {
  for (const { args, moments } of SAMPLES) {
    it(`ends killpoint ${args.slice(1).join(' ')} at each of ${moments.length} moments`, async () => {
      const lines: string[] = [];
      let ended = 0;
      let interrupted = 0;
      for (const moment of moments) {
        const r = await interruptCheck(args, moment);
        lines.push(interruptionLine(r) + (endedWell(r) || r.finishedFirst ? '' : `\n  ${r.stderrTail}`));
        if (r.finishedFirst) continue;
        interrupted++;
        if (endedWell(r)) ended++;
      }
      expect(lines.join('\n')).not.toMatch(/HUNG|NO interrupted|LEFT|exit \d/);
      expect({ ended, interrupted }).toEqual({ ended: moments.length, interrupted: moments.length });
    }, 300_000);
  }
});
