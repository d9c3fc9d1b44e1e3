// killpoint/ai-sdk: a scenario's scripted model for agents written with the Vercel AI SDK.
export { ScriptedLanguageModel, conversationOf, type ScriptedLanguageModelOptions, type ScriptedModelEvent } from './scripted-language-model.js';
