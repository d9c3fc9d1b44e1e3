// What the journal holds: the run id and the conversation so far, as JSON. A journal that cannot
// be read is an error that names where it lives; a resume never carries on from garbage and
// never silently starts over.

import type { Conversation } from '../model/conversation.js';

export interface JournalDocument {
  version: 1;
  runId: string;
  conversation: Conversation;
}

export class JournalCorrupt extends Error {
  constructor(
    readonly location: string,
    problem: string,
  ) {
    super(`cannot resume from the journal at ${location}: ${problem}`);
    this.name = 'JournalCorrupt';
  }
}

export function serializeJournal(runId: string, conversation: Conversation): string {
  const doc: JournalDocument = { version: 1, runId, conversation };
  return JSON.stringify(doc);
}

export function parseJournal(text: string, location: string, runId: string): Conversation {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new JournalCorrupt(location, `not valid JSON (${(error as Error).message}); ${text.length} bytes`);
  }
  if (typeof doc !== 'object' || doc === null) throw new JournalCorrupt(location, 'expected a JSON object');
  const d = doc as Partial<JournalDocument>;
  if (d.version !== 1) throw new JournalCorrupt(location, `version: expected 1, got ${JSON.stringify(d.version)}`);
  if (d.runId !== runId) throw new JournalCorrupt(location, `runId: expected ${runId}, got ${JSON.stringify(d.runId)}`);
  if (!Array.isArray(d.conversation)) throw new JournalCorrupt(location, 'conversation: expected a list of messages');
  return d.conversation;
}
