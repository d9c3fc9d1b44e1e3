// What a LangGraph life run in killpoint's own process loads, as one bundle (run.ts): the life,
// and the error that says its checkpoint file is bad input (matched against this bundle's own class).

export { runLangGraphLife } from './life.js';
export { NotACheckpointDatabase } from './checkpoint-file.js';
