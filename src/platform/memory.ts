import v8 from 'node:v8';
import type { Config } from '../config.js';

/**
 * V8 settings that can change after the process started (the young generation's size cannot: it
 * is a command-line flag, YOUNG_GENERATION_MB). The heap growing factor is read at every full
 * collection, so setting it before the app is built bounds the heap from the first request on.
 */
export function applyMemorySettings(config: Pick<Config, 'heapGrowthPercent'>): void {
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
}
