// The one internal piece of DBOS killpoint relies on: the SDK's debug trigger points
// (`@dbos-inc/dbos-sdk/internal/debugpoint`, exported by the package for its own tests). They fire
// right after the system database has committed a step's output (DEBUG_TRIGGER_STEP_COMMIT) and a
// workflow's status row (DEBUG_TRIGGER_INITWF_COMMIT), which is exactly where a step-recorded or
// workflow-started kill point must be: after the commit, before anything else of the workflow.
// No public API tells of those commits. The SDK is pinned (5.3.0 in package.json) and
// test/dbos-engine.test.ts checks that every step of a run is followed by its record event, so an
// SDK that stops firing them fails the test instead of quietly moving the kill points.

import { DEBUG_TRIGGER_INITWF_COMMIT, DEBUG_TRIGGER_STEP_COMMIT, setDebugTrigger } from '@dbos-inc/dbos-sdk/internal/debugpoint';

export interface CommitHooks {
  /** A step's output (or error) was committed. */
  stepCommitted(): void;
  /** A workflow's status row was committed (the workflow was started or enqueued). */
  workflowInitCommitted(): void;
}

export function installCommitHooks(hooks: CommitHooks): void {
  setDebugTrigger(DEBUG_TRIGGER_STEP_COMMIT, { callback: () => hooks.stepCommitted() });
  setDebugTrigger(DEBUG_TRIGGER_INITWF_COMMIT, { callback: () => hooks.workflowInitCommitted() });
}
