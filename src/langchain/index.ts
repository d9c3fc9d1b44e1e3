// killpoint/langchain: a scenario's scripted model as a LangChain chat model, for graphs of your own
// (needs @langchain/core installed).
export { ScriptedChatModel, type ScriptedChatModelParams, type ModelEvent } from '../harness/engines/langgraph/chat-model.js';
export { langGraphIdempotencyKey } from '../harness/engines/langgraph/shop-tools.js';
