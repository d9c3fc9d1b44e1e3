// The script of a thread that runs LangGraph lives in killpoint's process (in-process/life-threads.ts),
// bundled with LangChain and LangGraph inlined as the child is: each job one life.

import { deserializeScenario } from '../../../model/scenario-json.js';
import { runInProcessLife } from '../../in-process/in-process-life.js';
import { serveLives } from '../../in-process/serve-lives.js';
import { NotACheckpointDatabase } from './checkpoint-file.js';
import { langGraphInProcessLife, type LangGraphLifeJob } from './in-process-job.js';
import { runLangGraphLife } from './life.js';

serveLives((job: LangGraphLifeJob, onCut) => runInProcessLife(langGraphInProcessLife(job, deserializeScenario(job.scenario), { runLangGraphLife, NotACheckpointDatabase }), onCut));
