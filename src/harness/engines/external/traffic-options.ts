// The traffic options of an agent behind the kill protocol, checked before anything runs: the
// cassette and its options as a module engine takes them (user-module/traffic-target.ts), and the
// upstreams played through local endpoints (--proxy NAME=URL: KILLPOINT_PROXY_<NAME>). Bad input
// names the option and what was expected (exit 2).

import { SystemInputError, type TrafficOptions } from '../../engine.js';
import type { Upstream } from '../../traffic/traffic-proxy.js';
import { moduleTrafficOf, trafficWords } from '../../user-module/traffic-target.js';
import type { HarnessTraffic } from './agent-traffic.js';

export interface HarnessTrafficOptions extends TrafficOptions {
  /** NAME=URL, a list or comma-separated. */
  proxy?: string | readonly string[];
}

/** The traffic asked for, or undefined without --cassette; `commandLine` and the upstreams are what the cassette is recorded for. */
export function harnessTrafficOf(options: HarnessTrafficOptions, commandLine: string): HarnessTraffic | undefined {
  const proxies = upstreamsOf(options.proxy);
  if (options.cassette === undefined && proxies.length > 0) throw new SystemInputError('--proxy: only with --cassette <file> (the agent\'s traffic, recorded once and replayed)');
  const cassette = moduleTrafficOf(options, commandLine, proxies);
  if (cassette === undefined) return undefined;
  // The command as given: a cassette recorded for another agent is refused by name.
  cassette.recordedFor.module = commandLine;
  return { cassette, proxies };
}

function upstreamsOf(value: string | readonly string[] | undefined): Upstream[] {
  if (value === undefined) return [];
  const items = typeof value === 'string' ? value.split(',') : [...value].flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  const upstreams: Upstream[] = [];
  for (const item of items) {
    if (typeof item !== 'string') throw new SystemInputError(`--proxy: expected NAME=URL, got ${JSON.stringify(item)}`);
    const at = item.indexOf('=');
    const [name, url] = at === -1 ? [item.trim(), ''] : [item.slice(0, at).trim(), item.slice(at + 1).trim()];
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new SystemInputError(`--proxy ${item}: "${name}" is not a name for a variable (expected NAME=URL, e.g. SHOP=https://api.shop.example/v1: the agent reads KILLPOINT_PROXY_SHOP)`);
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new SystemInputError(`--proxy ${item}: "${url}" is not an http(s) URL (expected NAME=URL, e.g. SHOP=https://api.shop.example/v1)`);
    const upper = name.toUpperCase();
    if (upstreams.some((u) => u.name === upper)) throw new SystemInputError(`--proxy ${item}: ${upper} is named twice`);
    upstreams.push({ name: upper, url: new URL(url).href });
  }
  return upstreams;
}

/** The words that name the traffic again in a replay command (never --record: a replay replays). */
export function harnessTrafficWords(traffic: HarnessTraffic | undefined): string[] {
  if (traffic === undefined) return [];
  return [...trafficWords(traffic.cassette), ...traffic.proxies.flatMap((p) => ['--proxy', `${p.name}=${p.url}`])];
}
