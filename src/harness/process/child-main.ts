// What the process of one life of a real engine does around the life itself: killpoint's own client
// of the kill protocol (protocol.ts) for an engine that runs in JavaScript. It starts the event sink
// (which sends the process SIGKILL right after the kill point), reads the run from the file the
// engine's variable names, numbers the life's events, and adds to each event line the interleaving
// picks taken since the previous event (`picks`, `pickWidths`), so the parent knows which picks this
// life consumed. A conversation the scripted model rejects is a failure of the life (exit 3); any
// other error is a crash, judged by the parent.

import { readFileSync, writeFileSync } from 'node:fs';
import type { Conversation } from '../../model/conversation.js';
import type { EngineLifeResult } from './process-life.js';
import { ENV, EventSink, EXIT_FAILED } from './protocol.js';

/** The value of an environment variable the life cannot do without. */
/** How a life in a child hands the parent an event: its kind and fields (the child numbers it). */
export type EmitEvent = (event: { kind: string; [field: string]: unknown }) => void;

export function requiredVariable(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name}: not set`);
  return value;
}

/** The interleaving picks this life may use (those its predecessors left), from the variable that carries them. */
export function picksFromVariable(variable: string): number[] {
  return JSON.parse(process.env[variable] ?? '[]') as number[];
}

/** What the engine's life reports through: its events, and every interleaving pick as it is taken. */
export interface LifeReporting {
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
}

export interface ProtocolLifeOptions {
  /** The exit status for an error that is the run's bad input (its message goes to stderr); undefined for any other. */
  badInputExit?: (error: unknown) => number | undefined;
}

/** Runs one life under the protocol and writes its result; `runVariable` names the file of the run. */
export async function runProtocolLife<Spec>(runVariable: string, life: (spec: Spec, reporting: LifeReporting) => Promise<Conversation | null>, options: ProtocolLifeOptions = {}): Promise<void> {
  const sink = EventSink.fromEnv();
  sink.start();
  const spec = JSON.parse(readFileSync(requiredVariable(runVariable), 'utf8')) as Spec;
  const resultPath = requiredVariable(ENV.result);
  let index = 0;
  let picks: number[] = [];
  let pickWidths: number[] = [];
  const emit: EmitEvent = (event) => {
    const line = picks.length > 0 ? { ...event, index, picks, pickWidths } : { ...event, index };
    picks = [];
    pickWidths = [];
    index++;
    sink.emit(line);
  };
  const onPick = (pick: number, width: number): void => {
    picks.push(pick);
    pickWidths.push(width);
  };
  let result: EngineLifeResult;
  try {
    const conversation = await life(spec, { emit, onPick });
    result = { end: 'finished', conversation };
  } catch (error) {
    // The parent reads bad input from the exit status and the message on stderr.
    const badInput = options.badInputExit?.(error);
    if (badInput !== undefined) {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(badInput);
    }
    // Matched by name: an engine may hand a life's error back by name and message only.
    if ((error as Error | undefined)?.name !== 'ConversationRejected') throw error;
    result = { end: 'failed', errorKind: 'conversation-rejected', error: (error as Error).message };
    writeFileSync(resultPath, JSON.stringify(result));
    process.stderr.write(`${result.error}\n`);
    process.exit(EXIT_FAILED);
  }
  writeFileSync(resultPath, JSON.stringify(result));
}

/**
 * Runs a child's main; an error it ends with is a crash (its stack on stderr, exit status 1). With
 * `exitWhenDone`, the process exits (0) as soon as main is done, whatever the engine keeps running.
 */
export function runChildMain(main: () => Promise<void>, options: { exitWhenDone?: boolean } = {}): void {
  main().then(options.exitWhenDone ? () => process.exit(0) : undefined, (error: unknown) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  });
}
