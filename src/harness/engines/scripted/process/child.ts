// One life of the TypeScript harness as a process: killpoint's own client of the protocol
// (protocol.ts). It opens the durable stores from files, runs agentLife, appends every event to
// the events file and sends itself SIGKILL right after the kill point. The run's scenario and
// strategy come from the file KILLPOINT_TS_RUN names, the interleaving picks this life may use from
// KILLPOINT_TS_PICKS. Each event line carries `pick` when the interleaving chose just before it, so
// the parent knows which picks this life consumed.

import { readFileSync, writeFileSync } from 'node:fs';
import { ScriptedModel } from '../../../../model/scripted-model.js';
import { driveLife } from '../../../life-loop.js';
import { classifyScriptedError } from '../life-errors.js';
import { agentLife, Interleaving } from '../runner.js';
import { strategy as strategyNamed } from '../strategies.js';
import { closeStores } from '../../../../model/stores.js';
import { openFileStores } from '../../../../model/file-stores.js';
import { ENV, EXIT_FAILED, EventSink } from '../../../process/protocol.js';
import { deserializeScenario } from '../../../../model/scenario-json.js';
import { TS_ENV, type RunSpec } from './run-spec.js';
import { receiveLifeVariables } from '../../../process/warm-start.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name}: not set`);
  return value;
}

function main(): void {
  // A warm child waits here, loaded, for its life's variables (src/harness/process/warm-pool.ts).
  receiveLifeVariables();
  const sink = EventSink.fromEnv();
  sink.start();
  const spec = JSON.parse(readFileSync(required(TS_ENV.run), 'utf8')) as RunSpec;
  const scenario = deserializeScenario(spec.scenario);
  const strategy = strategyNamed(spec.strategy);
  const picks = JSON.parse(process.env[TS_ENV.picks] ?? '[]') as number[];
  const lifeIndex = Number(required(ENV.life));
  const resultPath = required(ENV.result);
  const stores = openFileStores(required(ENV.stateDir), strategy.journalWrite);
  const interleaving = new Interleaving(picks);
  let picksSeen = 0;
  // The kill is the child's own SIGKILL, sent by the sink right after the kill point's event; the
  // life loop drives the life with no kill point of its own and keeps the per-life event bound.
  const driven = driveLife(lifeIndex, null, () => agentLife({ scenario, model: new ScriptedModel(scenario), strategy, stores, lifeIndex, interleaving }), classifyScriptedError, (event) => {
    // The pick and how many calls it chose among (the explorer enumerates orders from the widths).
    const pick = interleaving.taken.length > picksSeen ? { pick: interleaving.taken[picksSeen], pickWidth: interleaving.widths[picksSeen++] } : {};
    sink.emit({ ...event, ...pick });
  });
  if (driven.record.end === 'failed') {
    writeFileSync(resultPath, JSON.stringify({ end: 'failed', errorKind: driven.record.errorKind, error: driven.record.error }));
    process.stderr.write(`${driven.record.error}\n`);
    closeStores(stores);
    process.exit(EXIT_FAILED);
  }
  writeFileSync(resultPath, JSON.stringify({ end: 'finished', conversation: driven.result?.conversation ?? null }));
  closeStores(stores);
}

main();
