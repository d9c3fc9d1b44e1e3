// The scenario's scripted model as an AI SDK language model: an agent loop written with
// generateText / streamText and tools runs a bundled task to the same answer and the same writes as
// killpoint's own runner, and the model rejects a conversation a model API would reject.

import { generateText, jsonSchema, stepCountIs, streamText, tool, type ToolSet } from 'ai';
import { describe, expect, test } from 'vitest';
import { ScriptedLanguageModel, type ScriptedModelEvent } from '../src/ai-sdk/index.js';
import { loadScenarioFile, LANTERN_DIR } from '../src/model/load.js';
import { Shop } from '../src/model/shop.js';
import { TOOL_NAMES } from '../src/model/tools.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { join } from 'node:path';

const dana = loadScenarioFile(join(LANTERN_DIR, 'T01-dana-torn-pad.json'));
const ivan = loadScenarioFile(join(LANTERN_DIR, 'T03-ivan-two-orders.json'));

function shopTools(shop: Shop): ToolSet {
  return Object.fromEntries(
    TOOL_NAMES.map((name) => [name, tool({ description: name, inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }), execute: async (args) => shop.call(name, args).result })]),
  );
}

describe('ScriptedLanguageModel', () => {
  test.each([dana, ivan])('generateText with tools runs $id to the answer and the writes of killpoint\'s runner', async (scenario) => {
    const shop = Shop.create(scenario.shop);
    const events: ScriptedModelEvent[] = [];
    const model = new ScriptedLanguageModel({ scenario, onEvent: (e) => events.push(e) });
    const result = await generateText({ model, tools: shopTools(shop), prompt: scenario.customerMessage, stopWhen: stepCountIs(20) });
    const runner = simulate(scenario, 'journal', { kills: [], interleaving: [] });
    expect(result.text).toBe(runner.delivered[0]);
    expect(shop.writeLog().map((w) => `${w.kind} ${w.target}`)).toEqual(runner.writes.map((w) => `${w.kind} ${w.target}`));
    expect(events.filter((e) => e.kind === 'model-request').length).toBe(result.steps.length);
    shop.close();
  });

  test('streamText streams the answer in the scenario\'s chunks, one event each', async () => {
    const shop = Shop.create(dana.shop);
    const events: ScriptedModelEvent[] = [];
    const model = new ScriptedLanguageModel({ scenario: dana, onEvent: (e) => events.push(e) });
    const stream = streamText({ model, tools: shopTools(shop), prompt: dana.customerMessage, stopWhen: stepCountIs(20) });
    const pieces: string[] = [];
    for await (const piece of stream.textStream) pieces.push(piece);
    const answerStep = [...dana.steps.values()].find((s) => s.kind === 'answer' && pieces.join('') === s.text);
    expect(answerStep).toBeDefined();
    expect(pieces.length).toBe(answerStep!.kind === 'answer' ? answerStep!.chunks : -1);
    const last = events.filter((e) => e.kind === 'model-chunk' && e.final);
    expect(last.length).toBe(pieces.length);
    shop.close();
  });

  test('the stable tool call ids of the scenario reach the tools (a key built from them is the same in every life)', async () => {
    const shop = Shop.create(dana.shop);
    const ids: string[] = [];
    const tools = Object.fromEntries(TOOL_NAMES.map((name) => [name, tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }), execute: async (args, { toolCallId }) => (ids.push(toolCallId), shop.call(name, args).result) })]));
    await generateText({ model: new ScriptedLanguageModel({ scenario: dana }), tools, prompt: dana.customerMessage, stopWhen: stepCountIs(20) });
    const again: string[] = [];
    const shop2 = Shop.create(dana.shop);
    const tools2 = Object.fromEntries(TOOL_NAMES.map((name) => [name, tool({ inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }), execute: async (args, { toolCallId }) => (again.push(toolCallId), shop2.call(name, args).result) })]));
    await generateText({ model: new ScriptedLanguageModel({ scenario: dana }), tools: tools2, prompt: dana.customerMessage, stopWhen: stepCountIs(20) });
    expect(ids.length).toBeGreaterThan(0);
    expect(again).toEqual(ids);
    expect(ids.every((id) => !/^[0-9a-f-]{36}$/.test(id))).toBe(true);
    shop.close();
    shop2.close();
  });

  test('a conversation with a tool call left without its result is rejected, as a model API would', async () => {
    const model = new ScriptedLanguageModel({ scenario: dana });
    const prompt = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: dana.customerMessage }] },
      { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: 'call_x', toolName: 'get_order', input: { orderId: 'O-1042' } }] },
    ];
    await expect(model.doGenerate({ prompt })).rejects.toThrow(/rejected the conversation/);
  });
});
