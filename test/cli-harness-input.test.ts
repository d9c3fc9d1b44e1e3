// A harness whose run without a kill gives killpoint nothing to judge is bad input (exit 2), never
// "every kill point survived": no events (so no kill point but "before anything"), or no answer
// delivered (it exited 0 without finishing its task).

import { describe, expect, it } from 'vitest';
import { main } from '../src/harness/cli/main.js';
import { captureConsole } from './helpers.js';

// A shop with its write_log, as the protocol asks; then whatever the script does next.
const SHOP = `python3 -c "import sqlite3,os; sqlite3.connect(os.path.join(os.environ['KILLPOINT_STATE_DIR'],'shop.sqlite')).execute('CREATE TABLE IF NOT EXISTS write_log(seq INTEGER PRIMARY KEY, kind, target, args, key)')"`;
const ANSWER = `echo '{"runId":"r","text":"done"}' >> "$KILLPOINT_STATE_DIR/outbox.jsonl"`;
const EVENT = `echo '{"index":0,"kind":"start"}' >> "$KILLPOINT_EVENTS"`;

const out = captureConsole();

describe('killpoint harness on a run without a kill that gives nothing to judge', () => {
  it.each([
    ['writes no events', `${SHOP}; ${ANSWER}`, /the run without a kill wrote no events \(KILLPOINT_EVENTS\): there is no kill point to test/],
    ['delivers no answer (exits 0 unfinished)', `${SHOP}; ${EVENT}`, /the run without a kill exited 0 but delivered no answer \(outbox\.jsonl\): it did not finish its task/],
  ])('%s: exit 2, not a pass', async (_what, script, message) => {
    const status = await main(['harness', '--', 'sh', '-c', script]);
    expect(out.text()).toMatch(message);
    expect(out.text()).not.toMatch(/survived|holds/);
    expect(status).toBe(2);
  });
});
