// An agent loop on the Vercel AI SDK: generateText with tools, one model step at a time, the
// conversation saved to a journal after every step so that a recovery resumes where it stopped.
// The model is killpoint's scripted model (deterministic replies with stable tool call ids), so
// every life and every run behaves the same and killpoint can compare them. The refund tool sends
// its write with a key built from the run and the tool call id: a repeat after a kill in the gap
// (after the refund commits, before the journal saves the step) is answered from the key table.

import { readFileSync } from 'node:fs';
import { generateText, jsonSchema, tool, type ModelMessage } from 'ai';
import { parseScenario } from 'killpoint';
import { ScriptedLanguageModel } from 'killpoint/ai-sdk';
import { idempotencyKey, refuse, startLife } from 'killpoint/agent';

const RUN_ID = 'dana-refund';
const keys = !process.argv.includes('--no-keys');
const scenario = parseScenario(JSON.parse(readFileSync(new URL('../scenario.json', import.meta.url), 'utf8')), 'scenario.json');

const life = startLife();
if (life.delivered().length > 0) process.exit(0); // the task already ended
const store = life.openStore();
store.setup((db) => {
  db.exec('CREATE TABLE lines (order_id TEXT, line_id TEXT, quantity INTEGER, price_cents INTEGER, refunded_cents INTEGER)');
  db.prepare('INSERT INTO lines VALUES (?, ?, ?, ?, 0)').run('O-1042', 'L1', 2, 7950);
});

type Line = { order_id: string; line_id: string; quantity: number; price_cents: number; refunded_cents: number };
const args = jsonSchema<Record<string, unknown>>({ type: 'object' });
const tools = {
  get_order: tool({
    inputSchema: args,
    execute: async (input, { toolCallId }) => {
      life.event('tool-start', { tool: 'get_order', callId: toolCallId });
      const lines = store.db.prepare('SELECT * FROM lines WHERE order_id = ?').all(input.orderId) as Line[];
      life.event('tool-result', { tool: 'get_order', callId: toolCallId });
      return { ok: true, lines };
    },
  }),
  refund: tool({
    inputSchema: args,
    execute: async (input, { toolCallId }) => {
      life.event('tool-start', { tool: 'refund', callId: toolCallId });
      const { orderId, lineId, amountCents } = input as { orderId: string; lineId: string; amountCents: number };
      const key = keys ? idempotencyKey(RUN_ID, toolCallId) : null;
      const write = store.write({ kind: 'refund', target: `${orderId}/${lineId}`, args: { amountCents }, key, callId: toolCallId }, (db) => {
        const line = db.prepare('SELECT * FROM lines WHERE order_id = ? AND line_id = ?').get(orderId, lineId) as Line;
        if (line.refunded_cents + amountCents > line.quantity * line.price_cents) return refuse('over-refund');
        db.prepare('UPDATE lines SET refunded_cents = refunded_cents + ? WHERE order_id = ? AND line_id = ?').run(amountCents, orderId, lineId);
        return { ok: true, refundedCents: line.refunded_cents + amountCents };
      });
      life.event('tool-result', { tool: 'refund', callId: toolCallId });
      return write.status === 'refused' ? { ok: false, refused: write.reason } : write.result;
    },
  }),
};

const model = new ScriptedLanguageModel({ scenario, onEvent: ({ kind, ...detail }) => life.event(kind, detail) });
const journal = life.journal<ModelMessage[]>();
let messages: ModelMessage[];
try {
  messages = journal.load() ?? [{ role: 'user', content: scenario.customerMessage }];
} catch (error) {
  life.fail((error as Error).message);
}

// A kill after the last step was saved and before the answer went out leaves a finished
// conversation: deliver its answer, do not ask the model again (killpoint found this one).
const last = messages.at(-1);
const answered = last?.role === 'assistant' && (typeof last.content === 'string' || !last.content.some((p) => p.type === 'tool-call'));
while (!answered) {
  const step = await generateText({ model, tools, messages });
  messages = [...messages, ...step.response.messages];
  journal.save(messages);
  if (step.finishReason !== 'tool-calls') break;
}
life.deliver(answerText(messages.at(-1)!), RUN_ID);
life.close();

function answerText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}
