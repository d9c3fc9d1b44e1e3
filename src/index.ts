// killpoint: proves whether a durable AI agent survives being killed. The API a test suite uses:
// check an agent of your own (any language, through the kill protocol) or a scenario under an
// engine's system, at every kill point, and get the verdict, the report and the replay command.
// See also killpoint/agent (the client an agent calls), killpoint/vitest (one call, vitest tests),
// killpoint/fast-check (arbitraries), killpoint/ai-sdk and killpoint/langchain (scripted models).

export { checkAgent, checkAgentSchedule, agentKillPoints, agentHarness, type AgentCheck, type AgentCommand, type CheckAgentOptions, type MinimalFailure, type ScheduleCheck } from './harness/api/check-agent.js';
export { checkScenario, checkScenarioSchedule, scenarioKillPoints, type CheckScenarioOptions, type ScenarioCheck, type ScenarioScheduleCheck } from './harness/api/check-scenario.js';
export { check, checkSchedule, killPointsOf, type CheckOptions, type ModuleCheckTarget } from './harness/api/check-module.js';
export { checkLangGraph, checkLangGraphSchedule, langGraphKillPoints, checkDbos, checkDbosSchedule, dbosKillPoints, checkRestate, checkRestateSchedule, restateKillPoints, checkVercelWorkflow, checkVercelWorkflowSchedule, vercelWorkflowKillPoints, type CheckLangGraphOptions, type CheckDbosOptions, type CheckRestateOptions, type CheckVercelWorkflowOptions } from './harness/api/check-module.js';

// The search, for systems of your own behind the engine seam.
export { explore, judgeCase, DEFAULT_EXPLORE_OPTIONS, type Exploration, type ExploreOptions, type JudgedCase } from './harness/search/explore.js';
export { findMinimal, type MinimalResult } from './harness/search/minimal.js';
export type { DriveOptions } from './harness/search/drive.js';
export type { Answer, Engine, InProcessSession, InProcessSystem, Session, SessionLives, SystemUnderTest } from './harness/engine.js';
export { runSchedule, withSession } from './harness/session.js';
export { BaselineDidNotFinish, SystemInputError } from './harness/engine.js';
export { registerEngine, engineNamed, engineNames, moduleEngines, DEFAULT_ENGINE } from './harness/registry.js';
export type { ModuleEngine, ModuleFlag, ModuleEngineOptions } from './harness/engine.js';

// What a run leaves and how it is judged.
export type { RunOutcome, LifeRecord, Schedule, CommittedWrite } from './harness/check/outcome.js';
export type { RunEvent } from './harness/check/events.js';
export { judge, type Verdict } from './harness/check/verdict.js';
export { CHECKS, CHECK_NAMES, CHECK_LABELS, failedChecks, type CheckName } from './harness/check/checks.js';
export { killPointIdentity, findKillPoint } from './harness/check/kill-points.js';

// Scenarios: the task, the shop's rows and the scripted model's replies.
export { parseScenario, ScenarioError, type Scenario } from './model/scenario.js';
export { loadScenarioFile, lanternScenarios, LANTERN_DIR } from './model/load.js';
export { ScriptedModel, ConversationRejected } from './model/scripted-model.js';

// The reporter: a verdict as sentences, and the one command that replays a case.
export { formatExploration, formatFailure, explorationJson, replayCommand, type CaseSource } from './harness/report/text.js';
export { differences } from './harness/check/verdict-lines.js';
