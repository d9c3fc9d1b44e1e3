// The process of one LangGraph life: killpoint's own client of the kill protocol for this engine
// (src/harness/process/child-main.ts does the protocol's part). The run (scenario and system) comes
// from the file KILLPOINT_LG_RUN names, the interleaving picks this life may use from
// KILLPOINT_LG_PICKS. A checkpoint file that is not a checkpoint database is bad input (its exit
// status); a test's fault may hang or crash the life right after the event it names.

import { ENV } from '../../process/protocol.js';
import { deserializeScenario } from '../../../model/scenario-json.js';
import { NotACheckpointDatabase } from './checkpoint-file.js';
import { runLangGraphLife } from './life.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife } from '../../process/child-main.js';
import { receiveLifeVariables } from '../../process/warm-start.js';
import { EXIT_BAD_INPUT, LG_ENV, type LangGraphFaults, type LangGraphRunSpec } from './run-spec.js';

async function main(): Promise<void> {
  // A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
  receiveLifeVariables();
  await runProtocolLife<LangGraphRunSpec>(
    LG_ENV.run,
    (spec, { emit, onPick }) =>
      runLangGraphLife({
        scenario: deserializeScenario(spec.scenario),
        config: spec.config,
        stateDir: requiredVariable(ENV.stateDir),
        picks: picksFromVariable(LG_ENV.picks),
        emit: (event) => {
          emit(event);
          injectFault(spec.faults, event.kind);
        },
        onPick,
        faults: spec.faults,
      }),
    { badInputExit: (error) => (error instanceof NotACheckpointDatabase ? EXIT_BAD_INPUT : undefined) },
  );
}

/** A test's fault, right after the event it names: hang (blocking the thread for good) or crash. */
function injectFault(faults: LangGraphFaults | undefined, kind: string): void {
  if (faults?.hangAfter === kind) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  if (faults?.crashAfter === kind) {
    process.stderr.write(`Error: the life crashed (a fault injected after ${kind})\n`);
    process.exit(1);
  }
}

runChildMain(main);
