// The Workflow SDK looks for the port its server listens on at every invocation of the workflow and
// at every step; a life listens on none, and the SDK keeps only a port it found, so every ask ran
// the whole discovery (a full process report, then /proc) again. A life asks once
// (engines/vercel-workflow/port-once.ts): the answer is the discovery's, and it is not asked again.

import { afterEach, describe, expect, it } from 'vitest';
import { discoverPortOnce } from '../src/harness/engines/vercel-workflow/port-once.js';

interface PortLazy {
  getPortLazy(): Promise<number | undefined>;
}

async function sdkPortLazy(): Promise<PortLazy> {
  return (await import(new URL('./runtime/get-port-lazy.js', import.meta.resolve('@workflow/core')).href)) as PortLazy;
}

const report = process.report!;
const getReport = report.getReport.bind(report);
afterEach(() => {
  report.getReport = getReport;
});

describe("the SDK's port discovery in a life", () => {
  it('runs once however often the SDK asks, and gives what the discovery found (no port: the SDK says localhost:3000)', async () => {
    const { getPortLazy } = await sdkPortLazy();
    let reports = 0;
    report.getReport = ((...args: Parameters<typeof getReport>) => {
      reports++;
      return getReport(...args);
    }) as typeof report.getReport;

    await discoverPortOnce();
    const answers = [await getPortLazy(), await getPortLazy(), await getPortLazy()];

    expect(answers).toEqual([undefined, undefined, undefined]);
    expect(reports).toBe(1);
  });
});
