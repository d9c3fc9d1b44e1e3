// An agent's traffic as the user asks killpoint to play it (--cassette, --record, --model-url,
// --idempotency-header): checked before anything runs, so that bad input is named by its option,
// and carried in the run's file to every life (traffic-life.ts), whatever the engine.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { canonicalJson } from '../../model/canonical-json.js';
import { SystemInputError, type TrafficOptions } from '../engine.js';
import type { RecordedFor } from '../traffic/cassette-file.js';
import { isCredentialHeader } from '../traffic/secrets.js';

export interface ModuleTraffic {
  /** The cassette's absolute path, and as given. */
  file: string;
  arg: string;
  /** Write the cassette again even where it is present (--record). */
  record: boolean;
  /** Where the recording run writes, moved to `file` once that run has finished. */
  recordTo: string;
  /** What the lives do, as the parent decides it (traffic-recorder.ts): record (the recording run) or replay. */
  mode: 'record' | 'replay';
  /** The digest of the cassette the lives replay, once the parent has read it. */
  digest?: string;
  /** Why the run that was to record the cassette did not finish (its last life's error): no life replays then, each says this instead. */
  recordingUnfinished?: string;
  recordedFor: RecordedFor;
  modelUrls: string[];
  idempotencyHeaders: string[];
}

/** The traffic asked for, or undefined when no cassette is; `moduleArg` and `input` name what it is recorded for. */
export function moduleTrafficOf(options: TrafficOptions, moduleArg: string, input: unknown): ModuleTraffic | undefined {
  const modelUrls = listOf(options.modelUrl, '--model-url');
  const idempotencyHeaders = listOf(options.idempotencyHeader, '--idempotency-header');
  if (options.record !== undefined && typeof options.record !== 'boolean' && options.record !== 'true' && options.record !== 'false') throw new SystemInputError(`record: expected true or false, got ${JSON.stringify(options.record)}`);
  const record = options.record === true || options.record === 'true';
  if (options.cassette === undefined) {
    const alone = [record ? '--record' : null, modelUrls.length > 0 ? '--model-url' : null, idempotencyHeaders.length > 0 ? '--idempotency-header' : null].filter((f) => f !== null);
    if (alone.length > 0) throw new SystemInputError(`${alone.join(', ')}: only with --cassette <file> (the agent's traffic, recorded once and replayed)`);
    return undefined;
  }
  const file = resolve(options.cassette);
  const folder = dirname(file);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new SystemInputError(`--cassette ${options.cassette}: the folder ${folder} does not exist (create it; the cassette is written there)`);
  if (existsSync(file) && statSync(file).isDirectory()) throw new SystemInputError(`--cassette ${options.cassette}: a folder, not a file`);
  for (const url of modelUrls) if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new SystemInputError(`--model-url: "${url}" is not an http(s) URL (expected a prefix such as https://models.example.com/v1/)`);
  for (const name of idempotencyHeaders) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) throw new SystemInputError(`--idempotency-header: "${name}" is not a header name`);
    if (isCredentialHeader(name)) throw new SystemInputError(`--idempotency-header: ${name} carries a credential, never kept in a cassette: name the header that carries the idempotency key`);
  }
  return {
    file,
    arg: options.cassette,
    record,
    // Named apart from every other recording: worker threads share a process id.
    recordTo: join(folder, `.${basename(file)}.recording-${process.pid}-${randomBytes(4).toString('hex')}`),
    mode: 'replay',
    // The module as the current folder names it: ./src/agent.ts and src/agent.ts are one module.
    recordedFor: { module: relative(process.cwd(), resolve(moduleArg)).split(sep).join('/'), input: inputDigest(input) },
    // As fetch writes a URL (the scheme and host in lower case), so that a prefix matches as written.
    modelUrls: modelUrls.map((url) => new URL(url).href),
    idempotencyHeaders,
  };
}

/** The words that name the traffic again in a replay command: the cassette and its options, never --record (a replay replays). */
export function trafficWords(traffic: ModuleTraffic | undefined): string[] {
  if (traffic === undefined) return [];
  return [
    '--cassette', traffic.arg,
    ...(traffic.modelUrls.length === 0 ? [] : ['--model-url', traffic.modelUrls.join(',')]),
    ...(traffic.idempotencyHeaders.length === 0 ? [] : ['--idempotency-header', traffic.idempotencyHeaders.join(',')]),
  ];
}

/** The flags a replay command may carry, and the option fields they set. */
export const TRAFFIC_WORDS: Readonly<Record<string, keyof TrafficOptions>> = { '--cassette': 'cassette', '--model-url': 'modelUrl', '--idempotency-header': 'idempotencyHeader' };

function listOf(value: string | readonly string[] | undefined, option: string): string[] {
  if (value === undefined) return [];
  const items = (typeof value === 'string' ? value.split(',') : [...value]).map((v) => (typeof v === 'string' ? v.trim() : v));
  if (items.some((v) => typeof v !== 'string' || v === '')) throw new SystemInputError(`${option}: expected a comma-separated list of names, got ${JSON.stringify(value)}`);
  return items;
}

/** A digest of the input, so that a cassette recorded for another input is refused by name. */
function inputDigest(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input ?? null)).digest('hex').slice(0, 16);
}
