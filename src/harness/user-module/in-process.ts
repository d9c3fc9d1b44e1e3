// A user's module and killpoint's side of its life, loaded into killpoint's own process once, for
// lives run there (the in-process tier): bundled as its child is (one file, its packages inlined,
// the engine's own packages where the bundle leaves them external), or, where it cannot be
// bundled, the life as killpoint has it, which then loads the module itself.

import { pathToFileURL } from 'node:url';
import type { Conversation } from '../../model/conversation.js';
import type { LifeFence } from '../in-process/fence.js';
import { runInProcessLife } from '../in-process/in-process-life.js';
import type { LifeReporting } from '../process/child-main.js';
import type { TierLife, TierLifeRequest } from '../process/process-lives.js';
import { userModuleChildBundle, type ModuleChildEntry } from './bundle.js';
import type { BundledModule } from './load.js';
import { BAD_SETUP_PHRASE, isSetupError } from './setup-error.js';
import { applyInterception } from '../traffic/life-traffic.js';
import { watchFetch } from '../traffic/unanswered.js';

export interface ModuleLifeHere<Life, Loaded extends BundledModule> {
  /** The life's code: the bundle's exports, or killpoint's own module. */
  life: Life;
  /** The module as the bundle loaded it; absent, the life loads it. */
  loaded?: Loaded;
}

const loadedHere = new Map<string, Promise<unknown>>();

/**
 * The life of `entry.childMain` with the user's module, loaded once per module and life. With
 * `traffic`, a copy of its own, loaded once the interception is applied to this thread, so that an
 * SDK client made as the module loads holds the intercepted fetch (a request made in no life's
 * context on killpoint's own thread is killpoint's own and passes through: traffic/life-traffic.ts);
 * without, the fetch is watched first for the same reason (traffic/unanswered.ts).
 */
export function moduleLifeHere<Life, Loaded extends BundledModule>(entry: Omit<ModuleChildEntry, 'asModule'>, unbundled: () => Promise<Life>): Promise<ModuleLifeHere<Life, Loaded>> {
  const key = `${entry.module}|${entry.childMain}|${entry.traffic === true}`;
  let found = loadedHere.get(key) as Promise<ModuleLifeHere<Life, Loaded>> | undefined;
  if (found === undefined) {
    found = (async () => {
      if (entry.traffic === true) applyInterception();
      else watchFetch();
      const bundle = await userModuleChildBundle({ ...entry, asModule: true });
      if (bundle === null) return { life: await unbundled() };
      const bundled = (await import(pathToFileURL(bundle).href)) as Life & { loaded: Loaded };
      return { life: bundled, loaded: bundled.loaded };
    })();
    loadedHere.set(key, found);
  }
  return found;
}

export interface ModuleLifeInProcess {
  /** The engine's name in a crashed life's error. */
  engine: string;
  /** Names the life in errors. */
  what: string;
  request: TierLifeRequest;
  timeoutMs: number;
  /** The life, in `workDir` (its private copy of the state folder), cut off through `fence`. */
  run(reporting: LifeReporting, fence: LifeFence, workDir: string): Promise<Conversation | null>;
}

/** One life of a user's module in killpoint's own process: a set-up the module cannot run with is bad input, as its child says it. */
export function runModuleLifeInProcess(life: ModuleLifeInProcess): Promise<TierLife> {
  return runInProcessLife({
    engine: life.engine,
    what: life.what,
    killAfter: life.request.killAfter,
    timeoutMs: life.timeoutMs,
    isBadInput: (error) => isSetupError(error),
    badInputPhrase: BAD_SETUP_PHRASE,
    stateDir: life.request.stateDir,
    run: life.run,
  });
}
