// A scenario is one support task as plain JSON-compatible data: the shop's starting rows, the
// customer's message, the scripted model's replies (a graph of steps) and the virtual timings.
// Everything that enters killpoint from a user passes through `parseScenario`, which names the
// source, the field and what was expected whenever something is wrong.

import { TOOL_NAMES, argsProblem, type ToolName } from './tools.js';

export interface CustomerRow {
  id: string;
  name: string;
  email: string;
  address: string;
}

export interface OrderLineRow {
  lineId: string;
  item: string;
  quantity: number;
  priceCents: number;
}

export type OrderStatus = 'processing' | 'shipped' | 'delivered' | 'cancelled';
export const ORDER_STATUSES: readonly OrderStatus[] = ['processing', 'shipped', 'delivered', 'cancelled'];

export interface OrderRow {
  id: string;
  customerId: string;
  status: OrderStatus;
  lines: OrderLineRow[];
}

export interface RefundRow {
  orderId: string;
  lineId: string;
  amountCents: number;
}

export interface ShopRows {
  customers: CustomerRow[];
  orders: OrderRow[];
  /** Refunds made before the task starts. */
  refunds: RefundRow[];
}

export interface ScriptedCall {
  /** Stable tool call id: the same reply always carries the same id. */
  id: string;
  tool: ToolName;
  args: Record<string, unknown>;
}

/** A condition on the results of the calls a step made; the first branch that matches wins. */
export interface BranchCondition {
  /** Which of the step's calls to look at (0 when there is one). */
  call: number;
  /** `ok` when the shop did it, `refused` when its rules refused it. */
  outcome?: 'ok' | 'refused';
  /** The result's field of this name is a non-empty list (e.g. `refunds` shows an earlier refund). */
  nonEmpty?: string;
  /** With `equals`: the result's field of this name (at any depth) has exactly this value. */
  field?: string;
  /** The value `field` must have (e.g. `status` equals `cancelled`, `leftCents` equals 0). */
  equals?: string | number | boolean;
}

export interface Branch {
  when?: BranchCondition;
  /** Further conditions that must hold as well (written in JSON as a list under `when`). */
  whenAlso?: BranchCondition[];
  goto: string;
}

export interface ToolStep {
  kind: 'calls';
  name: string;
  calls: ScriptedCall[];
  next: Branch[];
  chunks: number;
}

export interface AnswerStep {
  kind: 'answer';
  name: string;
  text: string;
  chunks: number;
}

export type ModelStep = ToolStep | AnswerStep;

export interface Timings {
  /** Time from sending a request to the model until its first chunk. */
  modelLatencyMs: number;
  /** Time between two chunks of a streamed reply. */
  chunkMs: number;
  /** Time every tool waits, like a real service, before it answers (or commits). */
  toolWaitMs: number;
  /** Time from the end of a step (a commit, a reply) to its saved record: the gap. */
  gapMs: number;
}

export const DEFAULT_TIMINGS: Timings = { modelLatencyMs: 180, chunkMs: 12, toolWaitMs: 150, gapMs: 0.13 };

export interface Scenario {
  id: string;
  title: string;
  customerMessage: string;
  shop: ShopRows;
  start: string;
  steps: Map<string, ModelStep>;
  timings: Timings;
}

export class ScenarioError extends Error {
  constructor(
    readonly source: string,
    readonly field: string,
    readonly expected: string,
  ) {
    super(`${source}: ${field}: expected ${expected}`);
    this.name = 'ScenarioError';
  }
}

/**
 * Bounds that keep a scenario runnable: a reply streams in at most MAX_CHUNKS chunks, an answer is
 * at most MAX_ANSWER_CHARS long, a model has at most MAX_STEPS steps, and the longest path through
 * them makes at most MAX_RUN_EVENTS events (half of what a life may have before it is taken for a
 * runaway loop), so a mistake in a file is an error at load time, not a run that crashes later.
 */
export const MAX_CHUNKS = 1000;
export const MAX_ANSWER_CHARS = 20_000;
export const MAX_STEPS = 1000;
export const MAX_RUN_EVENTS = 50_000;

/**
 * The longest a single timing may be: an hour. Virtual times add up over a run, and a timing far
 * beyond any real wait (1e308 ms) makes the run's duration Infinity, so that no kill time can be
 * drawn from it. At an hour each, the longest run a scenario may make (MAX_RUN_EVENTS events)
 * stays below 2e11 ms, where a double still tells a 0.13 ms gap apart.
 */
export const MAX_TIMING_MS = 3_600_000;

/** Names every object inherits (constructor, toString, __proto__, ...): never a field or argument of ours. */
function inheritedName(key: string): boolean {
  return key in Object.prototype;
}

/** Chunks a reply streams in when the scenario does not say. */
export const DEFAULT_CALL_CHUNKS = 4;
export function defaultAnswerChunks(text: string): number {
  return Math.max(2, Math.ceil(text.split(/\s+/).length / 6));
}

type Json = unknown;

class Reader {
  constructor(readonly source: string) {}

  fail(field: string, expected: string): never {
    throw new ScenarioError(this.source, field, expected);
  }

  object(value: Json, field: string): Record<string, Json> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(field, 'an object');
    return value as Record<string, Json>;
  }

  array(value: Json, field: string): Json[] {
    if (!Array.isArray(value)) this.fail(field, 'a list');
    return value;
  }

  string(value: Json, field: string): string {
    if (typeof value !== 'string' || value.length === 0) this.fail(field, 'a non-empty string');
    return value;
  }

  integer(value: Json, field: string, min: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) this.fail(field, `an integer >= ${min}`);
    return value;
  }

  chunks(value: Json, field: string): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_CHUNKS) this.fail(field, `an integer from 1 to ${MAX_CHUNKS}`);
    return value;
  }

  milliseconds(value: Json, field: string, max: number, maxWords: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
      this.fail(field, `milliseconds from 0 to ${max} (${maxWords}), got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`);
    }
    return value;
  }

  oneOf<T extends string>(value: Json, field: string, allowed: readonly T[]): T {
    if (typeof value !== 'string' || !allowed.includes(value as T)) this.fail(field, `one of ${allowed.join(', ')}`);
    return value as T;
  }

  onlyKeys(value: Record<string, Json>, field: string, allowed: readonly string[]): void {
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) this.fail(`${field}.${key}`, `no such field (allowed: ${allowed.join(', ')})`);
    }
  }
}

/** Validates raw JSON into a Scenario. `source` names where it came from (a file path). */
export function parseScenario(raw: Json, source: string): Scenario {
  const r = new Reader(source);
  const top = r.object(raw, '(top level)');
  r.onlyKeys(top, '(top level)', ['id', 'title', 'customerMessage', 'shop', 'model', 'timings', 'note']);
  const id = r.string(top.id, 'id');
  const title = r.string(top.title, 'title');
  const customerMessage = r.string(top.customerMessage, 'customerMessage');
  const shop = parseShop(r, top.shop);
  const timings = parseTimings(r, top.timings);
  const model = r.object(top.model, 'model');
  r.onlyKeys(model, 'model', ['start', 'steps']);
  const start = r.string(model.start, 'model.start');
  const rawSteps = r.object(model.steps, 'model.steps');
  if (Object.keys(rawSteps).length > MAX_STEPS) r.fail('model.steps', `at most ${MAX_STEPS} steps`);
  const steps = new Map<string, ModelStep>();
  const callIds = new Map<string, string>();
  for (const [name, value] of Object.entries(rawSteps)) {
    const step = parseStep(r, name, value);
    if (step.kind === 'calls') {
      for (const [i, call] of step.calls.entries()) {
        const owner = callIds.get(call.id);
        if (owner !== undefined) r.fail(`model.steps.${name}.calls[${i}].id`, `an id not already used by step ${owner}`);
        callIds.set(call.id, name);
      }
    }
    steps.set(name, step);
  }
  if (!steps.has(start)) r.fail('model.start', `the name of a step (have: ${[...steps.keys()].join(', ')})`);
  for (const step of steps.values()) {
    if (step.kind !== 'calls') continue;
    for (const [i, branch] of step.next.entries()) {
      if (!steps.has(branch.goto)) r.fail(`model.steps.${step.name}.next[${i}].goto`, 'the name of a step');
    }
  }
  rejectWritesToUnknownOrders(r, shop, steps);
  rejectCycles(r, steps);
  rejectLongRuns(r, steps, start);
  return { id, title, customerMessage, shop, start, steps, timings };
}

function parseShop(r: Reader, value: Json): ShopRows {
  const shop = r.object(value, 'shop');
  r.onlyKeys(shop, 'shop', ['customers', 'orders', 'refunds']);
  // The shop's tables have keys: an id (or an email) used twice is a mistake in the file, named
  // here, not a SQLite constraint error when the shop is built.
  const customerIdAt = new Map<string, number>();
  const emailAt = new Map<string, number>();
  const customers = r.array(shop.customers, 'shop.customers').map((c, i) => {
    const f = `shop.customers[${i}]`;
    const o = r.object(c, f);
    r.onlyKeys(o, f, ['id', 'name', 'email', 'address']);
    const row = {
      id: r.string(o.id, `${f}.id`),
      name: r.string(o.name, `${f}.name`),
      email: r.string(o.email, `${f}.email`),
      address: r.string(o.address, `${f}.address`),
    };
    if (customerIdAt.has(row.id)) r.fail(`${f}.id`, `an id not already used by shop.customers[${customerIdAt.get(row.id)}]`);
    if (emailAt.has(row.email)) r.fail(`${f}.email`, `an email not already used by shop.customers[${emailAt.get(row.email)}]`);
    customerIdAt.set(row.id, i);
    emailAt.set(row.email, i);
    return row;
  });
  const orderAt = new Map<string, number>();
  const orders = r.array(shop.orders, 'shop.orders').map((v, i) => {
    const f = `shop.orders[${i}]`;
    const o = r.object(v, f);
    r.onlyKeys(o, f, ['id', 'customerId', 'status', 'lines']);
    const id = r.string(o.id, `${f}.id`);
    if (orderAt.has(id)) r.fail(`${f}.id`, `an id not already used by shop.orders[${orderAt.get(id)}]`);
    orderAt.set(id, i);
    const customerId = r.string(o.customerId, `${f}.customerId`);
    if (!customerIdAt.has(customerId)) r.fail(`${f}.customerId`, 'the id of a customer in shop.customers');
    const lineAt = new Map<string, number>();
    return {
      id,
      customerId,
      status: r.oneOf(o.status, `${f}.status`, ORDER_STATUSES),
      lines: r.array(o.lines, `${f}.lines`).map((l, j) => {
        const lf = `${f}.lines[${j}]`;
        const line = r.object(l, lf);
        r.onlyKeys(line, lf, ['lineId', 'item', 'quantity', 'priceCents']);
        const lineId = r.string(line.lineId, `${lf}.lineId`);
        if (lineAt.has(lineId)) r.fail(`${lf}.lineId`, `a line id not already used by ${f}.lines[${lineAt.get(lineId)}]`);
        lineAt.set(lineId, j);
        return {
          lineId,
          item: r.string(line.item, `${lf}.item`),
          quantity: r.integer(line.quantity, `${lf}.quantity`, 1),
          priceCents: r.integer(line.priceCents, `${lf}.priceCents`, 0),
        };
      }),
    };
  });
  const orderById = new Map(orders.map((o) => [o.id, o]));
  const refunded = new Map<string, number>();
  const refunds = (shop.refunds === undefined ? [] : r.array(shop.refunds, 'shop.refunds')).map((v, i) => {
    const f = `shop.refunds[${i}]`;
    const o = r.object(v, f);
    r.onlyKeys(o, f, ['orderId', 'lineId', 'amountCents']);
    const row = {
      orderId: r.string(o.orderId, `${f}.orderId`),
      lineId: r.string(o.lineId, `${f}.lineId`),
      amountCents: r.integer(o.amountCents, `${f}.amountCents`, 1),
    };
    // An earlier refund is of a line the shop sells, and never more than the line cost in all.
    const order = orderById.get(row.orderId) ?? r.fail(`${f}.orderId`, 'the id of an order in shop.orders');
    const line = order.lines.find((l) => l.lineId === row.lineId) ?? r.fail(`${f}.lineId`, `the id of a line of order ${order.id}`);
    const key = `${order.id}/${line.lineId}`;
    const total = (refunded.get(key) ?? 0) + row.amountCents;
    if (total > line.quantity * line.priceCents) r.fail(`${f}.amountCents`, `refunds of line ${key} adding up to at most what it cost (${line.quantity * line.priceCents} cents)`);
    refunded.set(key, total);
    return row;
  });
  return { customers, orders, refunds };
}

function parseTimings(r: Reader, value: Json): Timings {
  if (value === undefined) return { ...DEFAULT_TIMINGS };
  const t = r.object(value, 'timings');
  const keys = Object.keys(DEFAULT_TIMINGS) as (keyof Timings)[];
  r.onlyKeys(t, 'timings', keys);
  const timings = { ...DEFAULT_TIMINGS };
  for (const key of keys) if (t[key] !== undefined) timings[key] = r.milliseconds(t[key], `timings.${key}`, MAX_TIMING_MS, 'an hour');
  return timings;
}

function parseStep(r: Reader, name: string, value: Json): ModelStep {
  const f = `model.steps.${name}`;
  const s = r.object(value, f);
  if (s.say !== undefined) {
    r.onlyKeys(s, f, ['say', 'chunks']);
    const text = r.string(s.say, `${f}.say`);
    if (text.length > MAX_ANSWER_CHARS) r.fail(`${f}.say`, `an answer of at most ${MAX_ANSWER_CHARS} characters`);
    const chunks = s.chunks === undefined ? defaultAnswerChunks(text) : r.chunks(s.chunks, `${f}.chunks`);
    if (chunks > text.length) r.fail(`${f}.chunks`, `at most one chunk per character (${text.length})`);
    return { kind: 'answer', name, text, chunks };
  }
  r.onlyKeys(s, f, ['calls', 'next', 'chunks']);
  if (s.calls === undefined) r.fail(f, 'either "say" (the final answer) or "calls" (tool calls)');
  const rawCalls = r.array(s.calls, `${f}.calls`);
  if (rawCalls.length === 0) r.fail(`${f}.calls`, 'at least one tool call');
  const calls = rawCalls.map((c, i) => {
    const cf = `${f}.calls[${i}]`;
    const o = r.object(c, cf);
    r.onlyKeys(o, cf, ['id', 'tool', 'args']);
    const tool = r.oneOf(o.tool, `${cf}.tool`, TOOL_NAMES);
    const args = r.object(o.args ?? {}, `${cf}.args`);
    // A name every object inherits (constructor, toString, __proto__) would pass a lookup in the
    // tool's list of arguments; it is refused before anything reads or walks its value.
    const inherited = Object.keys(args).filter(inheritedName);
    const own = Object.fromEntries(Object.entries(args).filter(([k]) => !inheritedName(k)));
    const [firstInherited] = inherited;
    const problem = argsProblem(tool, own) ?? (firstInherited === undefined ? null : { arg: firstInherited, expected: unknownArgExpected(tool, own) });
    if (problem !== null) r.fail(`${cf}.args.${problem.arg}`, problem.expected);
    const defaultId = rawCalls.length === 1 ? `call_${name}` : `call_${name}_${i + 1}`;
    return {
      id: o.id === undefined ? defaultId : r.string(o.id, `${cf}.id`),
      tool,
      args,
    };
  });
  const ids = new Set(calls.map((c) => c.id));
  if (ids.size !== calls.length) r.fail(`${f}.calls`, 'distinct call ids');
  const next = parseNext(r, s.next, `${f}.next`, calls.length);
  const chunks = s.chunks === undefined ? DEFAULT_CALL_CHUNKS : r.chunks(s.chunks, `${f}.chunks`);
  return { kind: 'calls', name, calls, next, chunks };
}

/** A name no tool takes, to ask argsProblem for the list of those it does. */
const UNKNOWN_ARG = '\u0000';

/** What argsProblem expects instead of an argument the tool does not take (its valid own arguments kept). */
function unknownArgExpected(tool: ToolName, own: Record<string, unknown>): string {
  const problem = argsProblem(tool, { ...own, [UNKNOWN_ARG]: true });
  if (problem === null) throw new Error(`scenario: argsProblem accepted an argument ${tool} does not take`);
  return problem.expected;
}

function parseNext(r: Reader, value: Json, field: string, callCount: number): Branch[] {
  if (typeof value === 'string') return [{ goto: r.string(value, field) }];
  const list = r.array(value, field);
  const branches = list.map((b, i) => {
    const bf = `${field}[${i}]`;
    const o = r.object(b, bf);
    r.onlyKeys(o, bf, ['when', 'goto']);
    const goto = r.string(o.goto, `${bf}.goto`);
    if (o.when === undefined) return { goto };
    // `when` is one condition, or a list of conditions that must all hold.
    const rawConditions = Array.isArray(o.when) ? o.when : [o.when];
    const [when, ...whenAlso] = rawConditions.map((c, j) =>
      parseCondition(r, c, Array.isArray(o.when) ? `${bf}.when[${j}]` : `${bf}.when`, callCount));
    if (when === undefined) r.fail(`${bf}.when`, 'a condition, or a non-empty list of conditions');
    return whenAlso.length === 0 ? { when, goto } : { when, whenAlso, goto };
  });
  const last = branches.at(-1);
  if (last === undefined || last.when !== undefined) {
    r.fail(field, 'a step name, or a list of branches whose last one has no "when" (the default)');
  }
  return branches;
}

function parseCondition(r: Reader, value: Json, field: string, callCount: number): BranchCondition {
  const w = r.object(value, field);
  r.onlyKeys(w, field, ['call', 'outcome', 'nonEmpty', 'field', 'equals']);
  const call = w.call === undefined ? 0 : r.integer(w.call, `${field}.call`, 0);
  if (call >= callCount) r.fail(`${field}.call`, `the index of one of the step's ${callCount} call(s)`);
  const when: BranchCondition = { call };
  if (w.outcome !== undefined) when.outcome = r.oneOf(w.outcome, `${field}.outcome`, ['ok', 'refused'] as const);
  if (w.nonEmpty !== undefined) when.nonEmpty = r.string(w.nonEmpty, `${field}.nonEmpty`);
  if (when.nonEmpty !== undefined && inheritedName(when.nonEmpty)) r.fail(`${field}.nonEmpty`, 'the name of a field of a tool result');
  if ((w.field === undefined) !== (w.equals === undefined)) r.fail(field, '"field" and "equals" together');
  if (w.field !== undefined) {
    when.field = r.string(w.field, `${field}.field`);
    if (inheritedName(when.field)) r.fail(`${field}.field`, 'the name of a field of a tool result');
    const t = typeof w.equals;
    if (t !== 'string' && t !== 'number' && t !== 'boolean') r.fail(`${field}.equals`, 'a string, number or boolean');
    when.equals = w.equals as string | number | boolean;
  }
  if (when.outcome === undefined && when.nonEmpty === undefined && when.field === undefined) {
    r.fail(field, '"outcome", "nonEmpty" or "field" with "equals"');
  }
  return when;
}

/** The ids a field may name, for a message: "have: O-1, O-2", or what to say when there are none. */
function haveIds(ids: readonly string[], none: string): string {
  return ids.length === 0 ? none : `have: ${ids.join(', ')}`;
}

/**
 * A write names an order (and a refund a line of it) the shop has. The shop would refuse any
 * other as unknown in every run, killed or not, so the step could never do what it says: a typo
 * in the file, named here rather than hidden in a verdict. A read may still look up an order the
 * shop does not have: that refusal is an answer a branch can follow.
 */
function rejectWritesToUnknownOrders(r: Reader, shop: ShopRows, steps: Map<string, ModelStep>): void {
  const orders = new Map(shop.orders.map((o) => [o.id, o]));
  for (const step of steps.values()) {
    if (step.kind !== 'calls') continue;
    for (const [i, call] of step.calls.entries()) rejectUnknownOrderOf(r, call, `model.steps.${step.name}.calls[${i}].args`, orders);
  }
}

/** One call of a write to an order: its orderId (and a refund's lineId) is one the shop has. */
function rejectUnknownOrderOf(r: Reader, call: ScriptedCall, field: string, orders: ReadonlyMap<string, OrderRow>): void {
  if (call.tool !== 'refund' && call.tool !== 'cancel_order') return;
  const { orderId, lineId } = call.args;
  const order = orders.get(String(orderId))
    ?? r.fail(`${field}.orderId`, `the id of an order in shop.orders (${haveIds([...orders.keys()], 'it is empty')}), got ${JSON.stringify(orderId)}`);
  if (call.tool !== 'refund' || order.lines.some((l) => l.lineId === lineId)) return;
  r.fail(`${field}.lineId`, `the id of a line of order ${order.id} (${haveIds(order.lines.map((l) => l.lineId), 'it has no lines')}), got ${JSON.stringify(lineId)}`);
}

/**
 * Roughly how many events a step adds to a life: the request, its chunks and the reply; for each
 * call its start, commit and result and the saves that record them; for an answer, its delivery
 * and saves. Generous on purpose: it bounds, it does not predict.
 */
function stepEvents(step: ModelStep): number {
  return step.kind === 'calls' ? step.chunks + 4 + 6 * step.calls.length : step.chunks + 5;
}

/** A lookup of a name checked before (every goto names a step): absent only through a bug here. */
function checkedGet<V>(map: Map<string, V>, name: string, what: string): V {
  const value = map.get(name);
  if (value === undefined) throw new Error(`scenario: no ${what} ${name}, though every step name was checked`);
  return value;
}

/** The longest path through the (acyclic) step graph must make a run a life can hold. */
function rejectLongRuns(r: Reader, steps: Map<string, ModelStep>, start: string): void {
  const longest = new Map<string, { events: number; path: string[] }>();
  // Steps in reverse topological order, without recursion (a long chain must not overflow the stack).
  const order: string[] = [];
  const seen = new Set<string>();
  const stack: { name: string; expanded: boolean }[] = [{ name: start, expanded: false }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (top.expanded) {
      order.push(top.name);
      continue;
    }
    if (seen.has(top.name)) continue;
    seen.add(top.name);
    stack.push({ name: top.name, expanded: true });
    const step = checkedGet(steps, top.name, 'step');
    if (step.kind === 'calls') for (const b of step.next) if (!seen.has(b.goto)) stack.push({ name: b.goto, expanded: false });
  }
  for (const name of order) {
    const step = checkedGet(steps, name, 'step');
    let best: { events: number; path: string[] } = { events: 0, path: [] };
    if (step.kind === 'calls') {
      for (const b of step.next) {
        const after = checkedGet(longest, b.goto, 'longest run from step');
        if (after.events > best.events) best = after;
      }
    }
    longest.set(name, { events: stepEvents(step) + best.events, path: [name, ...best.path] });
  }
  const run = checkedGet(longest, start, 'longest run from step');
  if (run.events > MAX_RUN_EVENTS) {
    const path = run.path.length > 4 ? [run.path[0], run.path[1], '...', run.path.at(-1)] : run.path;
    r.fail('model.steps', `a run of at most ${MAX_RUN_EVENTS} events (the longest path through the steps, ${path.join(' -> ')}, makes about ${run.events})`);
  }
}

/** A cycle would let a scripted conversation repeat call ids and never end. */
function rejectCycles(r: Reader, steps: Map<string, ModelStep>): void {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'open') r.fail('model.steps', `no cycle (found ${[...path, name].join(' -> ')})`);
    state.set(name, 'open');
    const step = checkedGet(steps, name, 'step');
    if (step.kind === 'calls') for (const b of step.next) visit(b.goto, [...path, name]);
    state.set(name, 'done');
  };
  for (const name of steps.keys()) visit(name, []);
}
