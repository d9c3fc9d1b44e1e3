// killpoint/fast-check: arbitraries for properties of your own: kill schedules for a run of n
// events, interleavings of parallel calls, and generated agents (scenarios a user could have written).
export {
  agentShape,
  describeShape,
  interleaving,
  interleavingsOf,
  killSchedule,
  killSchedulesFor,
  scenarioJson,
  scenarioOf,
  type AgentShape,
  type CallShape,
  type OrderShape,
} from './arbitraries.js';
