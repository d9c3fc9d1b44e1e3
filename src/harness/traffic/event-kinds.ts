// The network boundary's moments, as kill points: a request sent (nothing committed yet), a write
// committed by the service killpoint plays (its answer not yet back: the gap), a chunk of a streamed
// answer handed to the agent, and the answer read to its end. Every engine whose lives go through
// the boundary (life-traffic.ts) declares these kinds.

import { registerEventKinds, type EngineEventKind } from '../check/event-kinds.js';

export const HTTP_REQUEST = {
  kind: 'http-request',
  meaning: 'the agent sent an HTTP request (nothing committed by it yet)',
  group: 'tool',
  glyph: '>',
  label: (e) => `request ${e.request}`,
  subject: (e) => e.request ?? '',
} as const satisfies EngineEventKind;

export const SERVICE_COMMIT = {
  kind: 'service-commit',
  meaning: "the service committed the agent's write; its answer has not reached the agent (the gap)",
  group: 'commit',
  glyph: '$',
  label: (e) => `service committed ${e.request}`,
  subject: (e) => e.request ?? '',
} as const satisfies EngineEventKind;

export const HTTP_CHUNK = {
  kind: 'http-chunk',
  meaning: 'a chunk of a streamed answer reached the agent',
  group: 'model',
  label: (e) => `answer to ${e.request}: chunk ${(e.chunk ?? 0) + 1} of ${e.chunks}`,
  subject: (e) => `${e.request ?? ''}#${e.chunk ?? 0}`,
} as const satisfies EngineEventKind;

export const HTTP_RESPONSE = {
  kind: 'http-response',
  meaning: 'the answer to an HTTP request reached the agent, read to its end',
  group: 'tool',
  glyph: '<',
  label: (e) => `answer to ${e.request}`,
  subject: (e) => e.request ?? '',
} as const satisfies EngineEventKind;

/** The kinds of event a life whose traffic killpoint plays can be killed right after. */
export const TRAFFIC_KILL_POINTS = ['http-request', 'service-commit', 'http-chunk', 'http-response'] as const;

export const TRAFFIC_EVENT_KINDS: readonly EngineEventKind[] = [HTTP_REQUEST, SERVICE_COMMIT, HTTP_CHUNK, HTTP_RESPONSE];

registerEventKinds(TRAFFIC_EVENT_KINDS, 'the network boundary');
