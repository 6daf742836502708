import v8 from 'node:v8';
import vm from 'node:vm';
import type { Config } from '../config.js';

/**
 * V8 settings that can change after the process started (the young generation's size cannot: it
 * is a command-line flag, YOUNG_GENERATION_MB). The heap growing factor is read at every full
 * collection, so setting it before the app is built bounds the heap from the first request on.
 */
export function applyMemorySettings(config: Pick<Config, 'heapGrowthPercent'>): void {
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
}

/**
 * Two full collections after start-up (by default 5 and 15 s after listening), so that V8's memory
 * reducer returns start-up's garbage to the system in the first minute rather than whenever a later
 * collection happens to come. The reducer runs only once V8 sees a low allocation rate, and V8
 * measures the rate at collections: an idle server makes none, so the last rate it knew was start-up's
 * and the pages stayed. The server alone on PostgreSQL, 40–50 s after start: without them 119–121 MiB
 * in three runs of four, with them 89–92 in five of five (docs/performance.md, issue 42, fifth stop). Node has no API for it: `--expose-gc` set now gives the collector to a new context only,
 * never to the service's own global.
 */
export function releaseStartupMemory(delaysMs: readonly number[] = [5_000, 15_000]): void {
  let collect: (() => void) | undefined;
  for (const delay of delaysMs) {
    setTimeout(() => {
      if (!collect) {
        v8.setFlagsFromString('--expose-gc');
        collect = vm.runInNewContext('gc') as () => void;
      }
      collect();
    }, delay).unref();
  }
}
