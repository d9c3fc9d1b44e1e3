// killpoint harness -- <command> [args...]: kills a harness under test, in any language, at every
// kill point through the protocol (src/real/protocol.ts), restarts it, and judges each run
// against one never killed. Exit 1 when a kill point loses or repeats a write or changes the answer.

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { UsageError } from '../usage-error.js';
import { runExternal, type ExternalHarness } from '../../engines/external/external.js';
import { checkEveryKillPoint, judgeExternal, type ExternalVerdict } from '../../engines/external/engine.js';

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function describeFailure(v: ExternalVerdict): string {
  const problems = [
    ...v.doneTwice.map((w) => `done twice: ${w}`),
    ...v.differentWrites.map((w) => `a write the run never killed did not make: ${w}`),
    ...v.lostWrites.map((w) => `lost: ${w}`),
    ...(v.recoveryError ? [`recovery failed: ${v.recoveryError}`] : []),
    ...(v.answersDelivered !== 1 ? [`${v.answersDelivered} answers delivered`] : []),
    ...(!v.sameAnswer && v.answer !== null ? [`a different answer: ${JSON.stringify(v.answer)}`] : []),
  ];
  return problems.join('; ');
}

export async function harnessCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { kills: { type: 'string' }, concurrency: { type: 'string' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [command, ...commandArgs] = parsed.positionals;
  if (command === undefined) throw new UsageError('expected the harness command after --, e.g. killpoint harness -- python3 agents/python/refund_agent.py');
  const concurrency = parsed.values.concurrency === undefined ? availableParallelism() : Number(parsed.values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency: expected a whole number >= 1, got ${parsed.values.concurrency}`);
  const harness: ExternalHarness = { name: [command, ...commandArgs].map(quote).join(' '), command, args: commandArgs };
  const replay = (kills: number[]) => `killpoint harness --kills ${kills.join(',')} -- ${harness.name}`;

  if (parsed.values.kills !== undefined) {
    // Number('') is 0: an empty entry ('', '5,') must not become kill point 0.
    const kills = parsed.values.kills.split(',').map((k) => (k.trim() === '' ? NaN : Number(k)));
    if (kills.some((k) => !Number.isInteger(k) || k < -1)) throw new UsageError(`--kills: expected kill points (integers >= -1) separated by commas, got "${parsed.values.kills}"`);
    const verdict = judgeExternal(harness, await runExternal(harness, kills), await runExternal(harness, []));
    console.log(JSON.stringify(verdict, null, 2));
    return verdict.ok ? 0 : 1;
  }

  const verdicts = await checkEveryKillPoint(harness, concurrency);
  const failures = verdicts.filter((v) => !v.ok);
  for (const v of failures) {
    console.log(`kill point ${v.kills[0]} (after ${v.killedAfterEvent}): ${describeFailure(v)}`);
    console.log(`  replay: ${replay(v.kills)}`);
  }
  console.log(`${harness.name}: ${verdicts.length} kill points, ${verdicts.length - failures.length} survived, ${failures.length} did not`);
  return failures.length > 0 ? 1 : 0;
}
