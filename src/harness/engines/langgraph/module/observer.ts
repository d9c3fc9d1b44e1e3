// What killpoint sees of a user's graph without touching its code: a LangChain callback handler,
// passed with the run's config, that turns the graph's own moments into events (each a kill
// point) and orders parallel tool calls.
//
//   node-start / node-end   a graph node began / returned (a side effect written in a node, outside
//                           any tool, lies between two kill points)
//   model-request / model-chunk / model-reply   the chat model was called, streamed a token, replied
//   tool-start / tool-result                    a tool call began / returned
//
// LangChain runs handlers in the background unless they ask to be awaited: this one is awaited, so
// an event is written (and the process killed right after its kill point) before the graph goes
// on, and a tool call can be held at its start. The handler is duck-typed (the fields LangChain's
// callback manager reads), so it works with whichever copy of @langchain/core the user's graph
// loads.
//
// Parallel tool calls go one at a time, each from its start to its end, in the order the
// interleaving picks choose (the bundled engine's gate). killpoint does not own the user's
// tools, so it cannot hold one between its own steps: the interleavings explored are the orders of
// whole calls. A tool run inside another one (an agent used as a tool) belongs to the call that
// runs it: it has its events but passes no gate, which its caller holds.

import type { EmitEvent } from '../../../process/child-main.js';
import { Gate } from '../gate.js';
import { haltsWhenKilled } from '../../../in-process/fence.js';

interface ToolRun {
  callId: string;
  tool: string;
  /** Inside another tool run: not gated (its caller holds the gate). */
  nested: boolean;
}

export class GraphObserver {
  readonly name = 'killpoint-observer';
  readonly awaitHandlers = true;
  readonly raiseError = true;
  readonly ignoreLLM = false;
  readonly ignoreChain = false;
  readonly ignoreAgent = false;
  readonly ignoreRetriever = true;
  readonly ignoreCustomEvent = true;
  readonly lc_serializable = false;

  private readonly nodes = new Map<string, string>();
  private readonly modelCalls = new Map<string, { modelCall: number; chunks: number }>();
  private readonly tools = new Map<string, ToolRun>();
  private modelCallCount = 0;
  /** Tool runs without a tool call id (a tool invoked by hand), numbered by name so that lives repeat. */
  private readonly unnamedCalls = new Map<string, number>();
  /** Every run's parent, to tell a tool run inside another tool run. */
  private readonly parents = new Map<string, string | undefined>();

  constructor(
    private readonly emit: EmitEvent,
    private readonly gate: Gate,
  ) {}

  /** Writes the event; in process, a kill halts the handler here, so the graph, which awaits it, goes no further (fence.ts: haltsWhenKilled). */
  private say(event: Parameters<EmitEvent>[0]): Promise<never> | undefined {
    return haltsWhenKilled(() => this.emit(event));
  }

  /** The callback manager copies handlers for child runs: every copy is this one observer. */
  copy(): this {
    return this;
  }

  handleChainStart(_chain: unknown, _inputs: unknown, runId: string, parentRunId?: string, _tags?: string[], metadata?: Record<string, unknown>, _runType?: string, runName?: string): Promise<never> | undefined {
    this.parents.set(runId, parentRunId);
    const node = metadata?.langgraph_node;
    // A node's own run carries its name; the runnables inside it (and LangGraph's internal
    // writers) carry the node in their metadata too, under other names.
    if (typeof node !== 'string' || runName !== node || node.startsWith('__')) return;
    this.nodes.set(runId, node);
    return this.say({ kind: 'node-start', node });
  }

  handleChainEnd(_outputs: unknown, runId: string): Promise<never> | undefined {
    const node = this.nodes.get(runId);
    if (node === undefined) return;
    this.nodes.delete(runId);
    return this.say({ kind: 'node-end', node });
  }

  handleChainError(_error: unknown, runId: string): void {
    this.nodes.delete(runId);
  }

  handleChatModelStart(_llm: unknown, _messages: unknown, runId: string, parentRunId?: string): Promise<never> | undefined {
    this.parents.set(runId, parentRunId);
    const modelCall = this.modelCallCount++;
    this.modelCalls.set(runId, { modelCall, chunks: 0 });
    return this.say({ kind: 'model-request', modelCall });
  }

  handleLLMNewToken(_token: string, _idx: unknown, runId: string): Promise<never> | undefined {
    const call = this.modelCalls.get(runId);
    if (call === undefined) return;
    return this.say({ kind: 'model-chunk', modelCall: call.modelCall, chunk: call.chunks++ });
  }

  handleLLMEnd(output: { generations?: { message?: { tool_calls?: unknown[] } }[][] }, runId: string): Promise<never> | undefined {
    const call = this.modelCalls.get(runId);
    if (call === undefined) return;
    this.modelCalls.delete(runId);
    const message = output.generations?.[0]?.[0]?.message;
    return this.say({ kind: 'model-reply', modelCall: call.modelCall, final: (message?.tool_calls?.length ?? 0) === 0 });
  }

  handleLLMError(_error: unknown, runId: string): void {
    this.modelCalls.delete(runId);
  }

  async handleToolStart(_tool: unknown, _input: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, runName?: string, toolCallId?: string): Promise<void> {
    this.parents.set(runId, parentRunId);
    const tool = runName ?? 'tool';
    const callId = toolCallId ?? this.unnamedCall(tool);
    const nested = this.insideToolRun(parentRunId);
    this.tools.set(runId, { callId, tool, nested });
    if (!nested) await this.gate.pass(callId);
    const killed = this.say({ kind: 'tool-start', callId, tool });
    if (killed !== undefined) await killed;
  }

  handleToolEnd(_output: unknown, runId: string): Promise<never> | undefined {
    const run = this.tools.get(runId);
    if (run === undefined) return;
    this.tools.delete(runId);
    const killed = this.say({ kind: 'tool-result', callId: run.callId, tool: run.tool });
    if (killed === undefined && !run.nested) this.gate.finish(run.callId);
    return killed;
  }

  handleToolError(error: unknown, runId: string): Promise<never> | undefined {
    const run = this.tools.get(runId);
    if (run === undefined) return;
    this.tools.delete(runId);
    const killed = this.say({ kind: 'tool-result', callId: run.callId, tool: run.tool, refused: String((error as Error | undefined)?.message ?? error) });
    if (killed === undefined && !run.nested) this.gate.finish(run.callId);
    return killed;
  }

  /** Whether a run whose parent is `runId` lies inside a tool run still open. */
  private insideToolRun(runId: string | undefined): boolean {
    for (let id = runId, hops = 0; id !== undefined && hops < 10_000; id = this.parents.get(id), hops++) if (this.tools.has(id)) return true;
    return false;
  }

  private unnamedCall(tool: string): string {
    const n = (this.unnamedCalls.get(tool) ?? 0) + 1;
    this.unnamedCalls.set(tool, n);
    return `${tool}#${n}`;
  }
}
