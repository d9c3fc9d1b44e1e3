// The process of one LangGraph life: killpoint's own client of the kill protocol for this engine.
// The run (scenario and system) comes from the file KILLPOINT_LG_RUN names, the interleaving picks
// this life may use from KILLPOINT_LG_PICKS. Each event line carries the picks taken since the
// previous event (`picks`, `pickWidths`), so the parent knows which picks this life consumed.
// A conversation the scripted model rejects is a failure of the life (exit 3); any other error
// is a crash, judged by the parent.

import { readFileSync, writeFileSync } from 'node:fs';
import { ENV, EventSink, EXIT_FAILED } from '../../process/protocol.js';
import { deserializeScenario } from '../../../model/scenario-json.js';
import { NotACheckpointDatabase } from './checkpoint-file.js';
import { runLangGraphLife } from './life.js';
import type { EngineLifeResult } from '../../process/process-life.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { EXIT_BAD_INPUT, LG_ENV, type LangGraphFaults, type LangGraphRunSpec } from './run-spec.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name}: not set`);
  return value;
}

async function main(): Promise<void> {
  // A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
  receiveLifeVariables();
  const sink = EventSink.fromEnv();
  sink.start();
  const spec = JSON.parse(readFileSync(required(LG_ENV.run), 'utf8')) as LangGraphRunSpec;
  const resultPath = required(ENV.result);
  let index = 0;
  let picks: number[] = [];
  let pickWidths: number[] = [];
  const emit = (event: { kind: string; [field: string]: unknown }): void => {
    const line = picks.length > 0 ? { ...event, index, picks, pickWidths } : { ...event, index };
    picks = [];
    pickWidths = [];
    index++;
    sink.emit(line);
    injectFault(spec.faults, event.kind);
  };
  let result: EngineLifeResult;
  try {
    const conversation = await runLangGraphLife({
      scenario: deserializeScenario(spec.scenario),
      config: spec.config,
      stateDir: required(ENV.stateDir),
      picks: JSON.parse(process.env[LG_ENV.picks] ?? '[]') as number[],
      emit,
      onPick: (pick, width) => {
        picks.push(pick);
        pickWidths.push(width);
      },
      faults: spec.faults,
    });
    result = { end: 'finished', conversation };
  } catch (error) {
    // The parent reads bad input from the exit status and the message on stderr.
    if (error instanceof NotACheckpointDatabase) {
      process.stderr.write(`${error.message}\n`);
      process.exit(EXIT_BAD_INPUT);
    }
    if ((error as Error | undefined)?.name !== 'ConversationRejected') throw error;
    result = { end: 'failed', errorKind: 'conversation-rejected', error: (error as Error).message };
    writeFileSync(resultPath, JSON.stringify(result));
    process.stderr.write(`${result.error}\n`);
    process.exit(EXIT_FAILED);
  }
  writeFileSync(resultPath, JSON.stringify(result));
}

/** A test's fault, right after the event it names: hang (blocking the thread for good) or crash. */
function injectFault(faults: LangGraphFaults | undefined, kind: string): void {
  if (faults?.hangAfter === kind) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  if (faults?.crashAfter === kind) {
    process.stderr.write(`Error: the life crashed (a fault injected after ${kind})\n`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
