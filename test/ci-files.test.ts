// The CI files of docs/ci/ run as the runner would run them: each shard's commands with its index,
// the shard's files kept as its artifact, the merge job's commands on every shard's artifact, in
// that order. `npx killpoint` is this clone's command; `npm ci` is left out (the project here needs
// no install). A finding in one shard must fail the merge, not the shard; a missing shard too.
// `npm test` runs the sample (test/suite.ts): GitLab's pipeline on a finding, its four shards and
// its merge (10 s); `npm run engines` (KILLPOINT_SUITE=all) runs GitHub's workflow too.

import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { fullSuiteDescribe } from './suite.js';

const CI_DIR = join(PROJECT_ROOT, 'docs', 'ci');
const SCENARIOS = ['T01-dana-torn-pad.json', 'T02-grace-refund-blocked.json'];

interface Step {
  run?: string;
  uses?: string;
  if?: string;
  with?: Record<string, unknown>;
}

let work: string;
let shim: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'killpoint-ci-files-'));
  // `npx killpoint ...` runs this clone's command, as it would run the installed package's.
  shim = join(work, 'bin');
  mkdirSync(shim);
  writeFileSync(join(shim, 'npx'), `#!/bin/sh\n[ "$1" = killpoint ] || exit 127\nshift\nexec "${process.execPath}" "${join(PROJECT_ROOT, 'bin', 'killpoint.mjs')}" "$@"\n`);
  chmodSync(join(shim, 'npx'), 0o755);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A user's project: two of the bundled scenarios under scenarios/. */
function project(name: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'scenarios'), { recursive: true });
  for (const s of SCENARIOS) copyFileSync(join(PROJECT_ROOT, 'scenarios', 'lantern', s), join(dir, 'scenarios', s));
  return dir;
}

/** One shell command of a job, as the runner runs it (bash, stopping at the first failure); the exit status and what it printed. */
function sh(command: string, cwd: string, env: Record<string, string> = {}): { status: number | null; output: string } {
  const r = spawnSync('bash', ['-e', '-c', command], { cwd, encoding: 'utf8', env: { PATH: `${shim}:${process.env.PATH}`, HOME: process.env.HOME ?? '/', ...env } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** `sh`, without waiting: the shards of a job run side by side, as a runner runs them. */
function shLater(command: string, cwd: string, env: Record<string, string> = {}): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-c', command], { cwd, env: { PATH: `${shim}:${process.env.PATH}`, HOME: process.env.HOME ?? '/', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** A job's commands, in order, but the install (the project here needs none). */
function commands(lines: readonly string[]): string[] {
  return lines.filter((line) => line.trim() !== 'npm ci');
}

function readYaml(file: string, strategy: string): unknown {
  return parse(readFileSync(join(CI_DIR, file), 'utf8').replaceAll('--strategy journal+keys', `--strategy ${strategy}`));
}

interface GithubRun {
  dir: string;
  artifacts: string;
  shards: { status: number | null }[];
}

type Workflow = { jobs: { shard: { strategy: { matrix: { shard: number[] } }; steps: Step[] }; merge: { needs: string; steps: Step[] } } };

/** GitHub Actions: every matrix entry of the shard job, each uploading its artifact. */
async function runGithubShards(strategy: string): Promise<GithubRun> {
  const workflow = readYaml('github-actions.yml', strategy) as Workflow;
  const dir = project(`github-${strategy}`);
  const artifacts = join(dir, '.artifacts');
  const shards = workflow.jobs.shard.strategy.matrix.shard.map(async (index) => {
    const shardDir = project(`github-${strategy}-shard-${index}`);
    const at = (text: string): string => text.replaceAll('${{ matrix.shard }}', String(index));
    let last = { status: 0 as number | null, output: '' };
    for (const step of workflow.jobs.shard.steps) {
      if (step.run !== undefined && last.status === 0) for (const command of commands([at(step.run)])) last = await shLater(command, shardDir);
      if (step.uses?.startsWith('actions/upload-artifact')) {
        const name = at(String(step.with!.name));
        mkdirSync(join(artifacts, name), { recursive: true });
        sh(`cp ${at(String(step.with!.path))} ${join(artifacts, name)}/`, shardDir);
      }
    }
    return last;
  });
  return { dir, artifacts, shards: await Promise.all(shards) };
}

/** The merge job that `needs` the shards, on the artifacts it downloads (all but `dropShard`'s); the reports it keeps. */
function runGithubMerge(strategy: string, shards: GithubRun, dropShard?: number): { status: number | null; output: string; reports: string[] } {
  const workflow = readYaml('github-actions.yml', strategy) as Workflow;
  expect(workflow.jobs.merge.needs).toBe('shard');
  const dir = join(shards.dir, `merge-${dropShard ?? 'all'}`);
  mkdirSync(dir);
  let merge = { status: 0 as number | null, output: '' };
  for (const step of workflow.jobs.merge.steps) {
    if (step.uses?.startsWith('actions/download-artifact')) {
      const into = join(dir, String(step.with!.path));
      mkdirSync(into, { recursive: true });
      for (const name of readdirSync(shards.artifacts).filter((n) => n !== `killpoint-shard-${dropShard}`)) sh(`cp ${join(shards.artifacts, name)}/* ${into}/`, dir);
    }
    if (step.run !== undefined && merge.status === 0) for (const command of commands([step.run])) merge = sh(command, dir);
  }
  const keep = workflow.jobs.merge.steps.find((s) => s.if === 'always()' && s.uses?.startsWith('actions/upload-artifact'));
  const reports = sh(`ls ${String(keep!.with!.path)}`, dir).output.trim().split('\n').filter((l) => l !== '');
  return { ...merge, reports };
}

/** GitLab CI: the shard job once per `parallel:` index (CI_NODE_INDEX, CI_NODE_TOTAL), its artifacts passed to the merge job by `needs:`. */
async function runGitlab(strategy: string): Promise<{ shards: { status: number | null }[]; merge: { status: number | null; output: string }; reports: string[] }> {
  const pipeline = readYaml('gitlab-ci.yml', strategy) as Record<string, { stage?: string; parallel?: number; needs?: string[]; script?: string[]; artifacts?: { paths: string[] } }>;
  const shardJob = pipeline['killpoint-shard']!;
  const mergeJob = pipeline['killpoint-merge']!;
  expect(mergeJob.needs).toEqual(['killpoint-shard']);
  const dir = project(`gitlab-${strategy}`);
  const total = shardJob.parallel!;
  const shards = await Promise.all(
    Array.from({ length: total }, async (_, i) => {
      const shardDir = project(`gitlab-${strategy}-shard-${i + 1}`);
      const env = { CI_NODE_INDEX: String(i + 1), CI_NODE_TOTAL: String(total) };
      let last = { status: 0 as number | null, output: '' };
      for (const command of commands(shardJob.script!)) if (last.status === 0) last = await shLater(command, shardDir, env);
      for (const path of shardJob.artifacts!.paths) sh(`cp ${path} ${dir}/`, shardDir);
      return last;
    }),
  );
  let merge = { status: 0 as number | null, output: '' };
  for (const command of commands(mergeJob.script!)) if (merge.status === 0) merge = sh(command, dir);
  const reports = sh(`ls ${mergeJob.artifacts!.paths.join(' ')}`, dir).output.trim().split('\n').filter((l) => l !== '');
  return { shards, merge, reports };
}

fullSuiteDescribe('docs/ci/github-actions.yml, run locally in the order the runner would', () => {
  let keyed: GithubRun;

  test('keyed: every shard and the merge pass, and the merge job keeps each shard\'s HTML report', async () => {
    keyed = await runGithubShards('journal+keys');
    expect(keyed.shards.map((s) => s.status)).toEqual([0, 0, 0, 0]);
    const merge = runGithubMerge('journal+keys', keyed);
    expect(merge.status, merge.output).toBe(0);
    expect(merge.output).toMatch(/4 shards, 2 results: every promised check holds/);
    expect(merge.reports).toHaveLength(4);
  }, 120_000);

  test('a shard whose artifact is missing fails the merge as bad input', () => {
    const merge = runGithubMerge('journal+keys', keyed, 3);
    expect(merge.status, merge.output).toBe(2);
    expect(merge.output).toMatch(/shard 3\/4 is missing/);
  }, 120_000);

  test('a finding: the shards pass, the merge fails the build with the command that replays it', async () => {
    const finding = await runGithubShards('journal+random-keys');
    expect(finding.shards.map((s) => s.status)).toEqual([0, 0, 0, 0]);
    const merge = runGithubMerge('journal+random-keys', finding);
    expect(merge.status, merge.output).toBe(1);
    expect(merge.output).toMatch(/FAIL/);
    expect(merge.output).toMatch(/replay: npx killpoint check scenarios\/T0[12]/);
  }, 120_000);
});

describe('docs/ci/gitlab-ci.yml, run locally in the order the runner would', () => {
  test('a finding: every parallel shard passes, the merge fails the pipeline, the HTML reports are kept', async () => {
    const { shards, merge, reports } = await runGitlab('journal+random-keys');
    expect(shards.map((s) => s.status)).toEqual([0, 0, 0, 0]);
    expect(merge.status, merge.output).toBe(1);
    expect(merge.output).toMatch(/4 shards, 2 results: \d broke a promised check/);
    expect(reports).toHaveLength(4);
  }, 120_000);
});
