// An endpoint that does not answer, without a cassette: the agent's requests go to the real network
// untouched, and an SDK retries a dead one with backoff for minutes. killpoint names the URL at the
// first failed try, in one line on stderr, once; the check goes on (it is the SDK's to give up), and
// Ctrl-C stops it. The watch itself answers nothing: what the agent gets is what fetch gives it.
// Its sample in `npm test`: the closed port in process, and the watch's own test; the rest with
// `npm run engines`.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { UNANSWERED_LINE_START, watchedLife, watchFetch } from '../src/harness/traffic/unanswered.js';

const FIXTURES = 'test/fixtures/langgraph-modules';

/** A port nothing listens on: taken, then given back. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const parents: ChildProcess[] = [];
afterEach(() => {
  for (const p of parents.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/** Starts the check and resolves with its stderr once `line` matches there (or the check ended first); then it is interrupted. */
async function stderrUntil(args: string[], env: Record<string, string>, line: RegExp): Promise<{ stderr: string; endedFirst: boolean; interrupted: NodeJS.Signals | null }> {
  const parent = spawn(process.execPath, ['bin/killpoint.mjs', ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  parents.push(parent);
  let stderr = '';
  const ended = new Promise<NodeJS.Signals | null>((r) => parent.on('exit', (_code, signal) => r(signal)));
  const seen = await new Promise<boolean>((resolve) => {
    parent.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (line.test(stderr)) resolve(true);
    });
    void ended.then(() => resolve(false));
  });
  if (!seen) return { stderr, endedFirst: true, interrupted: null };
  // As a person would: Ctrl-C.
  parent.kill('SIGINT');
  return { stderr, endedFirst: false, interrupted: await ended };
}

describe('the run never killed, its model endpoint down and no cassette', () => {
  for (const tier of ['in-process', 'process'] as const) {
    (tier === 'in-process' ? test : fullSuiteTest)(`${tier}: the URL is named in one line while the SDK retries, and Ctrl-C stops the check`, async () => {
      const url = `http://127.0.0.1:${await closedPort()}/v1`;
      const args = ['check', '--langgraph', `${FIXTURES}/dead-model.ts`, '--input', `${FIXTURES}/input.json`, ...(tier === 'process' ? ['--tier', 'process'] : [])];
      // Its SDK retries ten times with backoff (about a minute): the line comes at the first failed try, long before.
      const r = await stderrUntil(args, { KILLPOINT_TEST_MODEL_URL: url }, /no answer from .*\n/);
      expect(r.endedFirst, r.stderr).toBe(false);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith(UNANSWERED_LINE_START));
      expect(lines).toEqual([`${UNANSWERED_LINE_START}${url}/chat/completions (ECONNREFUSED): its SDK may retry it for minutes; Ctrl-C stops the check, or --cassette <file> records the traffic once it answers and replays it after`]);
      expect(r.interrupted).toBe('SIGINT');
    }, 120_000);
  }
});

fullSuiteDescribe('a model endpoint that takes the request and never answers, no cassette', () => {
  let silent: Server;
  let url: string;
  beforeAll(async () => {
    // Reads the request, answers nothing: each try of the SDK ends at its own time limit.
    silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => (silent.closeAllConnections(), silent.close(() => r()))));

  for (const tier of ['in-process', 'process'] as const) {
    test(`${tier}: the progress line shows the request the run waits on, then its try that timed out is named`, async () => {
      const args = ['check', '--langgraph', `${FIXTURES}/dead-model.ts`, '--input', `${FIXTURES}/input.json`, ...(tier === 'process' ? ['--tier', 'process'] : [])];
      // KILLPOINT_PROGRESS=1: as at a terminal. Each try waits 4 s for its answer.
      const r = await stderrUntil(args, { KILLPOINT_TEST_MODEL_URL: url, KILLPOINT_PROGRESS: '1', KILLPOINT_TEST_MODEL_TIMEOUT_MS: '4000' }, /no answer from .*\n/);
      expect(r.endedFirst, r.stderr).toBe(false);
      expect(r.stderr).toMatch(new RegExp(`\\rkillpoint: waiting on POST ${url.replace(/[.]/g, '\\.')}/chat/completions \\(\\d+ s\\)\\x1b\\[K`));
      // The line is cleared before the one that names the endpoint.
      expect(r.stderr).toContain(`\r\x1b[K${UNANSWERED_LINE_START}${url}/chat/completions (no answer in time): `);
      expect(r.interrupted).toBe('SIGINT');
    }, 120_000);
  }
});

describe('the watch changes nothing of what the agent gets', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(201, { 'x-answer': 'yes' }).end(`asked ${req.method} ${req.url}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  test('an answer is handed back as it came; a failed try is the same error; only a life\'s failure is said, once, and never the engine\'s own', async () => {
    watchFetch();
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const answer = await watchedLife([], () => fetch(`${base}/v1/orders/A-17`, { method: 'POST', body: '{}' }));
      expect([answer.status, answer.headers.get('x-answer'), await answer.text()]).toEqual([201, 'yes', 'asked POST /v1/orders/A-17']);
      const dead = `http://127.0.0.1:${await closedPort()}`;
      const failedTry = (passThrough: string[]) => watchedLife(passThrough, () => fetch(`${dead}/v1/chat/completions`)).catch((e: Error) => e);
      // Outside any life (killpoint's own), and the engine's own origin: nothing said.
      const own = await fetch(`${dead}/own`).catch((e: Error) => e);
      const engines = await failedTry([dead]);
      expect(said).not.toHaveBeenCalled();
      const first = await failedTry([]);
      const second = await failedTry([]);
      for (const e of [own, engines, first, second]) expect([(e as Error).name, ((e as Error).cause as { code?: string }).code]).toEqual(['TypeError', 'ECONNREFUSED']);
      expect(said).toHaveBeenCalledTimes(1);
      expect(String(said.mock.calls[0]![0])).toContain(`no answer from ${dead}/v1/chat/completions (ECONNREFUSED)`);
    } finally {
      said.mockRestore();
    }
  });
});
