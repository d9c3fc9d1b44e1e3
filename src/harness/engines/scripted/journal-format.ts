// What the journal holds: the run id and the conversation so far, as JSON. A journal that cannot
// be read is an error that names where it lives; a resume never carries on from garbage and
// never silently starts over.

import type { Conversation, Message } from '../../../model/conversation.js';
import { parsedText } from '../../../model/parsed-texts.js';

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
 * Serializes a growing conversation save after save: the text is byte for byte serializeJournal's
 * (JSON.stringify writes an array's items as it writes each alone), but the unchanged first
 * messages (the same objects as at the last save) are not serialized again. So messages must not
 * change in place once saved (the runner replaces a message rather than editing it).
 */
export class JournalSerializer {
  private readonly head: string;
  /** The messages last saved, and joined[i]: the JSON of the first i of them, comma-separated. */
  private readonly saved: Message[] = [];
  private readonly joined: string[] = [''];
  /** JSON.stringify of messages whose text the caller already had (see `known`); made on first use. */
  private knownJson: Map<Message, string> | null = null;
  /** Messages taken from a journal read back (resume): the texts of fewer of them are not known. */
  private resumed = 0;

  constructor(runId: string) {
    this.head = `{"version":1,"runId":${JSON.stringify(runId)},"conversation":[`;
  }

  /**
   * The conversation was parsed from `text`, a journal this serializer's format wrote: its
   * messages are already serialized there (JSON.stringify of what JSON.parse made of
   * JSON.stringify's text is that text), so a resumed life's next save serializes only what it
   * adds. A later save that changes one of these messages serializes them all again.
   */
  resume(conversation: Conversation, text: string): void {
    if (conversation.length === 0 || !text.startsWith(this.head) || !text.endsWith(']}')) return;
    this.saved.push(...conversation);
    this.joined.length = conversation.length + 1;
    this.joined[conversation.length] = text.slice(this.head.length, text.length - 2);
    this.resumed = conversation.length;
  }

  /** `json` is JSON.stringify(message), already made elsewhere: a save uses it rather than make it again. */
  known(message: Message, json: string): void {
    (this.knownJson ??= new Map()).set(message, json);
  }

  text(conversation: Conversation): string {
    let same = 0;
    while (same < conversation.length && same < this.saved.length && conversation[same] === this.saved[same]) same++;
    if (same < this.resumed && same < this.saved.length) same = 0; // joined[same] was never made
    if (same < this.saved.length) {
      this.saved.length = same;
      this.joined.length = same + 1;
      this.resumed = Math.min(this.resumed, same);
    }
    for (let i = same; i < conversation.length; i++) {
      const message = conversation[i]!;
      const json = this.knownJson?.get(message) ?? JSON.stringify(message);
      this.saved.push(message);
      this.joined.push(i === 0 ? json : `${this.joined[i]!},${json}`);
    }
    return `${this.head}${this.joined[conversation.length]!}]}`;
  }
}

/**
 * The conversation of a journal read back: a list of its own (a life adds to it) of messages parsed
 * once per text and shared, frozen (src/model/parsed-texts.ts).
 */
export function parseJournal(text: string, location: string, runId: string): Conversation {
  let doc: unknown;
  try {
    doc = parsedText(text);
  } catch (error) {
    throw new JournalCorrupt(location, `not valid JSON (${(error as Error).message}); ${text.length} bytes`);
  }
  if (typeof doc !== 'object' || doc === null) throw new JournalCorrupt(location, 'expected a JSON object');
  const d = doc as Partial<JournalDocument>;
  if (d.version !== 1) throw new JournalCorrupt(location, `version: expected 1, got ${JSON.stringify(d.version)}`);
  if (d.runId !== runId) throw new JournalCorrupt(location, `runId: expected ${runId}, got ${JSON.stringify(d.runId)}`);
  if (!Array.isArray(d.conversation)) throw new JournalCorrupt(location, 'conversation: expected a list of messages');
  return [...d.conversation];
}
