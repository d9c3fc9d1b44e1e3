// The errors a scripted life stops on by itself, in both tiers: the model API rejects the
// conversation, or the journal cannot be read back. Anything else is a bug and is thrown.

import type { LifeErrorKind } from '../../check/outcome.js';
import { ConversationRejected } from '../../../model/scripted-model.js';
import { JournalCorrupt } from './journal-format.js';

export function classifyScriptedError(error: unknown): LifeErrorKind | null {
  if (error instanceof ConversationRejected) return 'conversation-rejected';
  if (error instanceof JournalCorrupt) return 'journal-corrupt';
  return null;
}
