// A refund that waits for a person: `propose` lists the lines to refund, `ask` stops the run with
// interrupt() until a person answers "refund 42.00 on A-17?" (true or "approve" approves), `refund`
// refunds an approved line, and `email` tells the customer once every line is answered. The
// answers come back with Command({ resume }); killpoint takes them from --resume.
// Three variants show what killpoint finds:
//   keys: false         a refund or an email repeated after a crash is recorded again
//   keys: true          each effect carries a key (thread, order, line): a repeat does nothing
//   noteWhenAsking      `ask` emails "we are looking at it" before it waits: LangGraph runs the
//                       whole node again when it is resumed, so the email goes twice with no crash

import { Annotation, END, interrupt, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { Ledger } from './ledger.js';

/** What killpoint gives the module: its checkpointer and a folder for the agent's data. */
export interface AgentContext {
  checkpointer: BaseCheckpointSaver;
  dataDir: string;
  threadId: string;
}

interface Line {
  lineId: string;
  amountCents: number;
}

const State = Annotation.Root({
  customer: Annotation<string>(),
  orderId: Annotation<string>(),
  lines: Annotation<Line[]>(),
  /** The lines still to ask about, first first. */
  pending: Annotation<Line[]>({ reducer: (_old, next) => next, default: () => [] }),
  /** The line the person just approved, to refund. */
  approved: Annotation<Line | null>({ reducer: (_old, next) => next, default: () => null }),
  answers: Annotation<string[]>({ reducer: (old, next) => [...old, ...next], default: () => [] }),
});

interface Variant {
  keys: boolean;
  noteWhenAsking: boolean;
}

const euros = (cents: number) => (cents / 100).toFixed(2);

export function buildRefundApproval(ctx: AgentContext, variant: Variant) {
  const ledger = new Ledger(ctx.dataDir);
  const key = (...parts: string[]) => (variant.keys ? [ctx.threadId, ...parts].join(':') : null);

  const propose = (state: typeof State.State) => ({ pending: state.lines });
  const ask = (state: typeof State.State) => {
    const line = state.pending[0]!;
    if (variant.noteWhenAsking) ledger.record({ kind: 'email', target: state.customer, args: { subject: 'we are looking at it' } }, null);
    const answer = interrupt({ question: `refund ${euros(line.amountCents)} on ${state.orderId}/${line.lineId}?` });
    const yes = answer === true || answer === 'approve';
    return { pending: state.pending.slice(1), approved: yes ? line : null, answers: [`${line.lineId}: ${yes ? 'approved' : 'declined'}`] };
  };
  const refund = (state: typeof State.State) => {
    const line = state.approved!;
    ledger.record({ kind: 'refund', target: `${state.orderId}/${line.lineId}`, args: { amountCents: line.amountCents } }, key('refund', state.orderId, line.lineId));
    return { approved: null };
  };
  const email = (state: typeof State.State) => {
    ledger.record({ kind: 'email', target: state.customer, args: { subject: `your refund request on ${state.orderId}`, answers: state.answers } }, key('email', state.orderId));
    return {};
  };
  return new StateGraph(State)
    .addNode('propose', propose)
    .addNode('ask', ask)
    .addNode('refund', refund)
    .addNode('email', email)
    .addEdge(START, 'propose')
    .addEdge('propose', 'ask')
    .addConditionalEdges('ask', (s) => (s.approved !== null ? 'refund' : s.pending.length > 0 ? 'ask' : 'email'), ['refund', 'ask', 'email'])
    .addConditionalEdges('refund', (s) => (s.pending.length > 0 ? 'ask' : 'email'), ['ask', 'email'])
    .addEdge('email', END)
    .compile({ checkpointer: ctx.checkpointer });
}

/** The effects the agent has recorded, for killpoint to compare with a run never killed. */
export function readRefundEffects(ctx: AgentContext) {
  const ledger = new Ledger(ctx.dataDir);
  try {
    return ledger.all();
  } finally {
    ledger.close();
  }
}
