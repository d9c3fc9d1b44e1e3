// What the journal holds: the run id and the conversation so far, as JSON. A journal that cannot
// be read is an error that names where it lives; a resume never carries on from garbage and
// never silently starts over.

import type { Conversation, Message } from '../model/conversation.js';

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

/**
 * Serializes a growing conversation save after save, each message serialized once: the text is
 * byte for byte serializeJournal's (JSON.stringify writes an array's items as it writes each
 * alone). A message is cached by identity, so messages must not change in place once saved
 * (the runner replaces a message rather than editing it).
 */
export class JournalSerializer {
  private readonly messages = new WeakMap<Message, string>();
  private readonly head: string;

  constructor(runId: string) {
    this.head = `{"version":1,"runId":${JSON.stringify(runId)},"conversation":[`;
  }

  text(conversation: Conversation): string {
    let body = '';
    for (let i = 0; i < conversation.length; i++) {
      const message = conversation[i]!;
      let json = this.messages.get(message);
      if (json === undefined) {
        json = JSON.stringify(message);
        this.messages.set(message, json);
      }
      body += i === 0 ? json : `,${json}`;
    }
    return `${this.head}${body}]}`;
  }
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
