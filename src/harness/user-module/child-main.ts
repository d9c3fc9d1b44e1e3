// The process of one life of a user's module, whatever its engine: killpoint's own client of the
// kill protocol (src/harness/process/child-main.ts does the protocol's part). The run comes from the
// file the engine's variable names; the bundled child hands the module already loaded, the
// unbundled one lets the life load it. A set-up that cannot be checked exits with its own status and
// one line on stderr: bad input. Engines keep their queues and pools running, so the life is over
// once its result is written.

import { readFileSync } from 'node:fs';
import { ENV } from '../process/protocol.js';
import { picksFromVariable, requiredVariable, runChildMain, runProtocolLife, type EmitEvent } from '../process/child-main.js';
import type { Conversation } from '../../model/conversation.js';
import type { BundledModule } from './load.js';
import { EXIT_BAD_SETUP, UserModuleSetupError } from './setup-error.js';
import { lifeWithTraffic } from './traffic-life.js';
import { TASK_NAME_VARIABLE, writeTaskName } from './task-name-child.js';
import { tellWaitsToParent } from '../traffic/waiting.js';
import { seedRandomness } from './seeded-randomness.js';
import type { ModuleTraffic } from './traffic-target.js';

/** What an engine's module life is given: `loaded`, the module as the bundled child loaded it (absent, the life loads it). */
export interface ModuleLifeInputs<Spec, Loaded extends BundledModule = BundledModule> {
  spec: Spec;
  loaded?: Loaded;
  stateDir: string;
  lifeIndex: number;
  picks: number[];
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
}

export interface ModuleChild<Spec, Loaded extends BundledModule = BundledModule> {
  /** The variables naming the run file and the picks. */
  env: { run: string; picks: string };
  /** Runs the life; a life that ends with a conversation of the engine's own (a graph's messages) hands it back. */
  life: (inputs: ModuleLifeInputs<Spec, Loaded>) => Promise<Conversation | null>;
  /** Errors of the engine's own that are bad input too, beside the module's set-up errors. */
  alsoBadInput?: (error: unknown) => boolean;
  /** Where the engine's own HTTP traffic goes (its server's ingress): passed through, never played as the agent's. */
  ownOrigins?: (spec: Spec) => string[];
  /** The task's name read off the module's export (task-name.ts), where the engine can tell it. */
  taskName?: (inputs: { spec: Spec; loaded?: Loaded; dataDir: string }) => Promise<string>;
}

export function runModuleChild<Spec extends { traffic?: ModuleTraffic }, Loaded extends BundledModule = BundledModule>(child: ModuleChild<Spec, Loaded>, loaded?: Loaded): void {
  const nameOf = child.taskName;
  if (process.env[TASK_NAME_VARIABLE] !== undefined && nameOf !== undefined) {
    const spec = JSON.parse(readFileSync(requiredVariable(child.env.run), 'utf8')) as Spec;
    return runChildMain(() => writeTaskName((dataDir) => nameOf({ spec, ...(loaded === undefined ? {} : { loaded }), dataDir })), { exitWhenDone: true });
  }
  // Its stderr is a pipe to the parent, which shows what the life waits on.
  tellWaitsToParent();
  runChildMain(
    () =>
      runProtocolLife<Spec>(
        child.env.run,
        (spec, { emit, onPick }) => {
          const stateDir = requiredVariable(ENV.stateDir);
          const lifeIndex = Number(requiredVariable(ENV.life));
          // The process ends with the life: nothing to put back.
          seedRandomness(lifeIndex);
          const life = () => child.life({ spec, ...(loaded === undefined ? {} : { loaded }), stateDir, lifeIndex, picks: picksFromVariable(child.env.picks), emit, onPick });
          return lifeWithTraffic(spec.traffic, { stateDir, emit, passThrough: child.ownOrigins?.(spec) ?? [] }, life);
        },
        { badInputExit: (error) => (error instanceof UserModuleSetupError || child.alsoBadInput?.(error) ? EXIT_BAD_SETUP : undefined) },
      ),
    { exitWhenDone: true },
  );
}
