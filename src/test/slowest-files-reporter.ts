import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the ten slowest test files after a run, so that a file that grows slow is seen the day it
 * does, not when the whole suite has crept past its budget. A file's time is what it cost its
 * worker: importing it (collect) plus its tests and hooks.
 */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const timed = modules.map((m) => {
      const d = m.diagnostic();
      return { file: m.relativeModuleId, seconds: (d.collectDuration + d.duration) / 1000 };
    });
    if (timed.length < 2) return;
    timed.sort((a, b) => b.seconds - a.seconds);
    const lines = timed.slice(0, 10).map((t) => `  ${t.seconds.toFixed(1).padStart(7)} s  ${t.file}`);
    process.stdout.write(`\nSlowest test files (import + tests):\n${lines.join('\n')}\n`);
  }
}
