// Local servers standing in for the hosted model and the shop, as a test starts them (CI has no
// network): the model speaks OpenAI's chat completions (streamed when asked; plain, as the AI SDK's
// openai.chat model asks) and, like a real one, names its tool calls with fresh random ids; the shop
// keeps orders and refunds in memory. Each counts what it was asked, so a test can see that only the
// recording run reached them.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface StandIns {
  /** The variables the agent reads: where the model and the shop are, and their keys. */
  env: Record<string, string>;
  /** Every request, as "METHOD path" (and whether it carried an Authorization). */
  asked: string[];
  stop(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: string | null;
}

export async function startStandIns(): Promise<StandIns> {
  const asked: string[] = [];
  let refunded = 0;
  let refunds = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    asked.push(`${req.method} ${req.url}`);
    if (req.method === 'POST' && req.url === '/v1/chat/completions') return answerModel(JSON.parse(body) as { messages: ChatMessage[]; stream?: boolean }, res);
    if (req.method === 'GET' && req.url === '/v1/orders/A-17') return json(res, 200, { id: 'A-17', total_cents: 4200, refunded_cents: refunded });
    if (req.method === 'POST' && req.url === '/v1/refunds') {
      const { cents } = JSON.parse(body) as { cents: number };
      refunded += cents;
      refunds += 1;
      return json(res, 201, { id: `re_${refunds}`, amount: cents });
    }
    json(res, 404, { error: `no ${req.method} ${req.url}` });
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    env: { OPENAI_BASE_URL: `${base}/v1`, OPENAI_API_KEY: 'sk-stand-in-secret', SHOP_URL: base, SHOP_API_KEY: 'shop-stand-in-secret' },
    asked,
    stop: () => stopped(server),
  };
}

/** The model's part: look the order up, refund what is left, then say so. */
function answerModel(request: { messages: ChatMessage[]; stream?: boolean }, res: ServerResponse): void {
  const toolResults = request.messages.filter((m) => m.role === 'tool').length;
  const id = `call_${randomBytes(6).toString('hex')}`;
  const completion = `chatcmpl-${randomBytes(6).toString('hex')}`;
  const reply =
    toolResults === 0
      ? { tool_calls: [{ id, type: 'function', function: { name: 'lookup_order', arguments: JSON.stringify({ order_id: 'A-17' }) } }] }
      : toolResults === 1
        ? { tool_calls: [{ id, type: 'function', function: { name: 'refund', arguments: JSON.stringify({ order_id: 'A-17', cents: 4200 }) } }] }
        : { content: 'Order A-17 is refunded: 42.00 EUR.' };
  if (request.stream === true) return streamReply(completion, reply, res);
  json(res, 200, { id: completion, object: 'chat.completion', created: 0, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: null, ...reply }, finish_reason: 'tool_calls' in reply ? 'tool_calls' : 'stop' }] });
}

/** A reply in server-sent events, its text word by word. */
function streamReply(completion: string, reply: { content?: string; tool_calls?: unknown[] }, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: completion, object: 'chat.completion.chunk', created: 0, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const words = (reply.content ?? '').split(/(?<= )/);
  for (const word of words) if (word !== '') res.write(chunk({ content: word }));
  if (reply.tool_calls !== undefined) res.write(chunk({ tool_calls: reply.tool_calls.map((c, index) => ({ index, ...(c as object) })) }));
  res.write(chunk({}, reply.tool_calls === undefined ? 'stop' : 'tool_calls'));
  res.end('data: [DONE]\n\n');
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function stopped(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
