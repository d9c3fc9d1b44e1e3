// Event kinds in the reports' strips, grouped the way a reader thinks of a run: the model
// streaming, a tool waiting, the shop committing, the agent saving, the answer.

import type { EventKind } from '../check/events.js';

export type KindGroup = 'model' | 'tool' | 'commit' | 'save' | 'answer';

export function kindGroup(kind: EventKind | string): KindGroup {
  switch (kind) {
    case 'model-request':
    case 'model-chunk':
    case 'model-reply':
      return 'model';
    case 'tool-start':
    case 'tool-result':
      return 'tool';
    case 'shop-commit':
      return 'commit';
    case 'answer-delivered':
      return 'answer';
    default:
      return 'save';
  }
}

export const KIND_COLOURS: Record<KindGroup, string> = {
  model: '#6b7a8f',
  tool: '#9a8c5b',
  commit: '#c0392b',
  save: '#2c7a7b',
  answer: '#5a3e85',
};
