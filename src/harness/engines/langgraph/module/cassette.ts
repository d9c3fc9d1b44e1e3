// A real model's replies, recorded once and replayed in every life: the run never killed records
// each chat model call's reply in a cassette file the user keeps in the repository, and every other
// run replays it, so a real API key costs one run and CI runs offline, and every life repeats.
//
// It rides on LangChain's own cache: every chat model of the user's graph gets the cassette as its
// cache (BaseChatModel.generate is wrapped in the copy of @langchain/core the user's graph loads),
// so the callbacks fire as for any cached reply (a request, one token, the reply). A call is known
// by its conversation, message by message; a recovery whose conversation is one the run never
// killed did not have leaves the recording: the life stops on "the conversation diverged at
// message N", a verdict about the recovery, never a crash.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserModuleSetupError } from '../../../user-module/setup-error.js';

export type CassetteMode = 'record' | 'replay';

interface Recorded {
  /** The conversation the model was called with, one key per message. */
  messages: string[];
  /** The reply as LangChain stores a cached generation. */
  generations: unknown[];
}

interface CassetteFile {
  recordedBy: 'killpoint';
  calls: Recorded[];
}

interface LangChainMessage {
  type?: string;
  content?: unknown;
  tool_calls?: { name?: string; args?: unknown; id?: string }[];
  tool_call_id?: string;
  _getType?: () => string;
}

interface ChatModelClass {
  prototype: { generate: (messages: LangChainMessage[][], ...rest: unknown[]) => Promise<unknown>; cache?: unknown };
  _convertInputToPromptValue(messages: unknown): { toString(): string };
}

interface CachesModule {
  serializeGeneration(generation: unknown): unknown;
  deserializeStoredGeneration(stored: unknown): unknown;
}

/** The error a life stops on when its conversation leaves the recording (named as the life loop reads a rejected conversation). */
export class ConversationDiverged extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversationRejected';
  }
}

/** A message as the cassette knows it: its role, text, tool calls and the call it answers. */
function messageKey(m: LangChainMessage): string {
  const type = m.type ?? m._getType?.() ?? 'unknown';
  const calls = (m.tool_calls ?? []).map((c) => ({ name: c.name, args: c.args, id: c.id }));
  return JSON.stringify({ type, content: m.content, ...(calls.length > 0 ? { calls } : {}), ...(m.tool_call_id === undefined ? {} : { answers: m.tool_call_id }) });
}

/**
 * The ESM file of a subpath of @langchain/core as the user's module imports it (the CommonJS copy
 * would be another module, whose classes the graph never uses).
 */
function userCoreModule(moduleFile: string, subpath: string): string {
  let packageJson: string;
  try {
    packageJson = createRequire(moduleFile).resolve('@langchain/core/package.json');
  } catch {
    throw new UserModuleSetupError(`--cassette: @langchain/core cannot be found from ${moduleFile}: the cassette records the replies of LangChain chat models`);
  }
  const exports = (JSON.parse(readFileSync(packageJson, 'utf8')) as { exports: Record<string, { import?: { default?: string } | string }> }).exports;
  const entry = exports[`./${subpath}`]?.import;
  const file = typeof entry === 'string' ? entry : entry?.default;
  if (file === undefined) throw new UserModuleSetupError(`--cassette: this @langchain/core (${packageJson}) has no ${subpath} to import`);
  return pathToFileURL(join(dirname(packageJson), file)).href;
}

export interface Cassette {
  /** Writes what was recorded (record mode), once the run has finished. */
  save(): void;
}

/** `bundled`: the copy of @langchain/core the bundled child carries (the graph's own); else the one the module imports from disk. */
export async function installCassette(moduleFile: string, file: string, mode: CassetteMode, bundled?: { chatModels: unknown; caches: unknown }): Promise<Cassette> {
  const { BaseChatModel } = (bundled?.chatModels ?? (await import(userCoreModule(moduleFile, 'language_models/chat_models')))) as { BaseChatModel: ChatModelClass };
  const caches = (bundled?.caches ?? (await import(userCoreModule(moduleFile, 'caches')))) as CachesModule;
  const recorded: Recorded[] = mode === 'replay' ? readCassette(file).calls : [];
  const keysByPrompt = new Map<string, string[]>();

  const cache = {
    async lookup(prompt: string): Promise<unknown[] | null> {
      const keys = keysByPrompt.get(prompt) ?? [];
      if (mode === 'record') return null;
      const found = recorded.find((r) => sameKeys(r.messages, keys));
      if (found !== undefined) return found.generations.map((g) => caches.deserializeStoredGeneration(g));
      throw new ConversationDiverged(`the conversation diverged at message ${divergence(recorded, keys)} from the recording in ${file} (the model was called with a conversation the run never killed did not have)`);
    },
    async update(prompt: string, _llm: string, generations: unknown[]): Promise<void> {
      recorded.push({ messages: keysByPrompt.get(prompt) ?? [], generations: generations.map((g) => caches.serializeGeneration(g)) });
    },
  };

  const generate = BaseChatModel.prototype.generate;
  BaseChatModel.prototype.generate = function (this: { cache?: unknown }, messages: LangChainMessage[][], ...rest: unknown[]) {
    this.cache = cache;
    for (const list of messages) keysByPrompt.set(BaseChatModel._convertInputToPromptValue(list).toString(), list.map(messageKey));
    return generate.call(this, messages, ...rest);
  };

  return {
    save() {
      if (mode !== 'record') return;
      const content: CassetteFile = { recordedBy: 'killpoint', calls: recorded };
      writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
    },
  };
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/** The first message at which the conversation leaves every recorded one (0-based). */
function divergence(recorded: readonly Recorded[], keys: readonly string[]): number {
  let longest = 0;
  for (const r of recorded) {
    let n = 0;
    while (n < r.messages.length && n < keys.length && r.messages[n] === keys[n]) n++;
    longest = Math.max(longest, n);
  }
  return longest;
}

function readCassette(file: string): CassetteFile {
  if (!existsSync(file)) throw new UserModuleSetupError(`--cassette ${file}: no such file to replay`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserModuleSetupError(`--cassette ${file}: not JSON (${(error as Error).message})`);
  }
  const calls = (parsed as { calls?: unknown } | null)?.calls;
  if (!Array.isArray(calls) || !calls.every((c) => Array.isArray((c as Recorded)?.messages) && Array.isArray((c as Recorded)?.generations))) {
    throw new UserModuleSetupError(`--cassette ${file}: calls: expected the list of recorded calls { messages, generations } killpoint writes`);
  }
  return parsed as CassetteFile;
}
