// Parallel tool calls in a repeatable order. LangGraph runs a reply's calls concurrently (ToolNode:
// all at once in one task; createReactAgent v2: one task each), so their events would come in the
// order the event loop happens to give. killpoint owns the tools, so it gates them: before each of
// its steps (start, the shop's transaction, the result) a call waits at the gate, and the gate lets
// exactly one call take one step at a time. It decides only once the call it let go has come back
// (or finished) and the event loop has settled (two turns, so that LangGraph's own follow-up work,
// such as saving a finished task's writes, happens before the next decision).
//
// Which call goes is an interleaving pick, as in killpoint's own runner (src/harness/interleaving.ts,
// where the gate's waiting and deciding live); the picks taken and how many calls each chose among
// are reported, so the explorer can enumerate every order.

import { SettlingGate } from '../../interleaving.js';

/** LangGraph's gate: it decides once the event loop has settled (two turns), as SettlingGate does. */
export class Gate extends SettlingGate {}
