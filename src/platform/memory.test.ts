import { describe, expect, it } from 'vitest';
import { releaseStartupMemory } from './memory.js';

describe('releasing start-up memory', () => {
  it('collects at each delay without giving the collector to the service\'s global', async () => {
    const before = process.memoryUsage().heapUsed;
    // Garbage the collections have to find.
    let garbage: unknown[] | null = Array.from({ length: 2_000_000 }, (_, i) => ({ i }));
    garbage = null;
    releaseStartupMemory([0, 20]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(garbage).toBeNull();
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(process.memoryUsage().heapUsed).toBeLessThan(before + 32 * 1024 * 1024);
  });
});
