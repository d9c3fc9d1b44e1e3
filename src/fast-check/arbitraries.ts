// Generated agents, interleavings and kill schedules, for killpoint's own properties and for users'
// (killpoint/fast-check). An agent is generated as a shape (plain
// data, easy to shrink and to print), turned into scenario JSON and validated by parseScenario, so
// every generated scenario is one a user could have written.
//
// Two restrictions keep the properties about durability rather than about races in the agent:
// - within one turn, parallel writes touch distinct things (two refunds of one line in parallel
//   would succeed or be refused depending on which runs first, with or without a kill);
// - a refusal changes the path only at the last tool turn (as in Dana's and Grace's tasks): a
//   refusal that ended the task early would skip later writes, which is a different task, not a
//   lost write.

import fc from 'fast-check';
import { parseScenario, type Scenario } from '../model/scenario.js';

export type CallShape =
  | { tool: 'find_customer' | 'list_orders' }
  | { tool: 'get_order' | 'list_refunds' | 'cancel_order'; order: number }
  /** part: the share of the line refunded, in quarters (4 = all of it: a repeat is refused). */
  | { tool: 'refund'; order: number; line: number; part: 1 | 2 | 4 }
  | { tool: 'change_address' | 'send_email' | 'hand_off'; variant: number };

export interface OrderShape {
  status: 'processing' | 'delivered' | 'cancelled';
  lines: { quantity: number; priceCents: number }[];
}

export interface AgentShape {
  orders: OrderShape[];
  turns: { calls: CallShape[]; chunks: number }[];
  answerChunks: number;
  /** The last tool turn branches to another answer when its first write is refused. */
  branchOnRefusal: boolean;
}

const orderShape: fc.Arbitrary<OrderShape> = fc.record({
  status: fc.constantFrom('processing', 'delivered', 'cancelled'),
  lines: fc.array(fc.record({ quantity: fc.integer({ min: 1, max: 3 }), priceCents: fc.integer({ min: 100, max: 9_999 }) }), { minLength: 1, maxLength: 2 }),
});

function callShape(orders: number): fc.Arbitrary<CallShape> {
  const order = fc.nat(orders - 1);
  return fc.oneof(
    fc.record({ tool: fc.constantFrom('find_customer' as const, 'list_orders' as const) }),
    fc.record({ tool: fc.constantFrom('get_order' as const, 'list_refunds' as const, 'cancel_order' as const), order }),
    fc.record({ tool: fc.constant('refund' as const), order, line: fc.nat(1), part: fc.constantFrom(1 as const, 2 as const, 4 as const) }),
    fc.record({ tool: fc.constantFrom('change_address' as const, 'send_email' as const, 'hand_off' as const), variant: fc.nat(2) }),
  );
}

/** What a write changes, to keep parallel writes of one turn apart. */
function writeTarget(c: CallShape): string | null {
  switch (c.tool) {
    case 'refund':
      return `refund ${c.order}`;
    case 'cancel_order':
      return `cancel ${c.order}`;
    case 'change_address':
    case 'send_email':
    case 'hand_off':
      return c.tool;
    default:
      return null;
  }
}

function distinctWrites(calls: CallShape[]): boolean {
  const targets = calls.map(writeTarget).filter((t): t is string => t !== null);
  return new Set(targets).size === targets.length;
}

export const agentShape: fc.Arbitrary<AgentShape> = fc
  .array(orderShape, { minLength: 1, maxLength: 2 })
  .chain((orders) =>
    fc.record({
      orders: fc.constant(orders),
      turns: fc.array(
        fc.record({ calls: fc.array(callShape(orders.length), { minLength: 1, maxLength: 3 }).filter(distinctWrites), chunks: fc.integer({ min: 1, max: 4 }) }),
        { minLength: 1, maxLength: 4 },
      ),
      answerChunks: fc.integer({ min: 1, max: 5 }),
      branchOnRefusal: fc.boolean(),
    }),
  );

const CUSTOMER = { id: 'C-1', name: 'Gen Erated', email: 'gen@example.com', address: '1 Test Road' };

function orderId(i: number): string {
  return `O-${100 + i}`;
}

function callJson(shape: AgentShape, c: CallShape, id: string): Record<string, unknown> {
  const orders = shape.orders;
  switch (c.tool) {
    case 'find_customer':
      return { id, tool: c.tool, args: { email: CUSTOMER.email } };
    case 'list_orders':
      return { id, tool: c.tool, args: { customerId: CUSTOMER.id } };
    case 'get_order':
    case 'list_refunds':
    case 'cancel_order':
      return { id, tool: c.tool, args: { orderId: orderId(c.order) } };
    case 'refund': {
      const lines = orders[c.order]!.lines;
      const line = lines[c.line % lines.length]!;
      const amountCents = Math.max(1, Math.floor((line.quantity * line.priceCents * c.part) / 4));
      return { id, tool: c.tool, args: { orderId: orderId(c.order), lineId: `L${(c.line % lines.length) + 1}`, amountCents } };
    }
    case 'change_address':
      return { id, tool: c.tool, args: { customerId: CUSTOMER.id, address: `${c.variant + 2} New Street` } };
    case 'send_email':
      return { id, tool: c.tool, args: { customerId: CUSTOMER.id, subject: `Update ${c.variant}`, body: `Your request ${c.variant} is handled.` } };
    case 'hand_off':
      return { id, tool: c.tool, args: { customerId: CUSTOMER.id, reason: `Needs a person (${c.variant})` } };
  }
}

/** The scenario JSON of a shape, as a user would write it. */
export function scenarioJson(shape: AgentShape, id = 'GEN'): Record<string, unknown> {
  const steps: Record<string, unknown> = {};
  const last = shape.turns.length - 1;
  for (const [t, turn] of shape.turns.entries()) {
    const calls = turn.calls.map((c, i) => callJson(shape, c, `t${t}c${i}`));
    const next = t === last ? 'answer' : `turn-${t + 1}`;
    const firstWrite = turn.calls.findIndex((c) => writeTarget(c) !== null);
    const branch = t === last && shape.branchOnRefusal && firstWrite !== -1;
    steps[`turn-${t}`] = {
      calls,
      chunks: turn.chunks,
      next: branch ? [{ when: { call: firstWrite, outcome: 'refused' }, goto: 'answer-refused' }, { goto: next }] : next,
    };
  }
  steps.answer = { say: 'All done: everything you asked for is taken care of.', chunks: shape.answerChunks };
  steps['answer-refused'] = { say: 'Sorry, the shop refused that, so a person will follow up.', chunks: shape.answerChunks };
  return {
    id,
    title: `generated agent: ${describeShape(shape)}`,
    customerMessage: 'Please sort out my orders.',
    shop: {
      customers: [CUSTOMER],
      orders: shape.orders.map((o, i) => ({
        id: orderId(i),
        customerId: CUSTOMER.id,
        status: o.status,
        lines: o.lines.map((l, j) => ({ lineId: `L${j + 1}`, item: `Item ${i}.${j}`, quantity: l.quantity, priceCents: l.priceCents })),
      })),
    },
    model: { start: 'turn-0', steps },
  };
}

export function scenarioOf(shape: AgentShape): Scenario {
  return parseScenario(scenarioJson(shape), 'generated agent');
}

/** One line: "3 turns: [find_customer] [refund O-100/L1 x2, cancel_order O-101] [get_order]". */
export function describeShape(shape: AgentShape): string {
  const call = (c: CallShape): string => {
    if (c.tool === 'refund') return `refund ${orderId(c.order)} ${c.part}/4`;
    if ('order' in c) return `${c.tool} ${orderId(c.order)}`;
    return c.tool;
  };
  return `${shape.turns.length} turn${shape.turns.length === 1 ? '' : 's'}: ${shape.turns.map((t) => `[${t.calls.map(call).join(', ')}]`).join(' ')}`;
}

/** Picks among parallel calls (taken modulo the number that can advance). */
export const interleaving: fc.Arbitrary<number[]> = fc.array(fc.nat(5), { maxLength: 12 });

/** 1 to 3 kill points, one per life; a point past a life's end lets that life finish. */
export const killSchedule: fc.Arbitrary<number[]> = fc.array(fc.integer({ min: -1, max: 120 }), { minLength: 1, maxLength: 3 });

/**
 * Kill schedules for a run of `events` events: 1 to `maxKills` kill points, one per life, each
 * from -1 (before the first event) to the last event; later lives are recoveries, whose length is
 * not known in advance, so their points range as widely and a point past a life's end lets it finish.
 */
export function killSchedulesFor(events: number, maxKills = 2): fc.Arbitrary<number[]> {
  if (!(Number.isInteger(events) && events >= 1)) throw new TypeError(`killSchedulesFor: events: expected a whole number >= 1, got ${events}`);
  if (!(Number.isInteger(maxKills) && maxKills >= 1)) throw new TypeError(`killSchedulesFor: maxKills: expected a whole number >= 1, got ${maxKills}`);
  return fc.array(fc.integer({ min: -1, max: events - 1 }), { minLength: 1, maxLength: maxKills });
}

/** Interleavings of `calls` parallel calls that each take `steps` steps: the picks that order them. */
export function interleavingsOf(calls: number, steps = 3): fc.Arbitrary<number[]> {
  if (!(Number.isInteger(calls) && calls >= 1)) throw new TypeError(`interleavingsOf: calls: expected a whole number >= 1, got ${calls}`);
  return fc.array(fc.nat(Math.max(0, calls - 1)), { minLength: 0, maxLength: calls * steps });
}
