import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originalPosition } from './stack-traces.js';

// A source whose error is thrown on its line 9, compiled as the service's build does (esbuild, a
// linked map without the sources' text, types stripped so the lines move).
const SOURCE = `interface Shape {
  kind: string;
  size: number;
}

type Reason = 'broken';

export function fail(shape: Shape, reason: Reason): never {
  throw new Error(\`\${shape.kind} is \${reason}\`);
}
`;

let root: string;
let dist: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'stack-traces-'));
  dist = path.join(root, 'dist');
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'src', 'shape.ts'), SOURCE);
  // The module under test too, compiled, so the child below runs plain node as the service does.
  writeFileSync(path.join(root, 'src', 'stack-traces.ts'), readFileSync('src/platform/stack-traces.ts'));
  await build({
    absWorkingDir: root,
    entryPoints: ['src/shape.ts', 'src/stack-traces.ts'],
    outdir: dist,
    outbase: 'src',
    format: 'esm',
    platform: 'node',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('stack traces of the compiled build', () => {
  it('maps a compiled position to its source file and line', () => {
    const compiled = path.join(dist, 'shape.js');
    // esbuild puts the throw on line 2 of the output (the types are gone).
    expect(originalPosition(compiled, 2, 3)).toBe(`${path.join(root, 'src', 'shape.ts')}:9:3`);
    // A file without a map beside it is left alone.
    expect(originalPosition(path.join(root, 'none.js'), 1, 1)).toBeNull();
  });

  it('formats a thrown error with its frames in src/*.ts, and keeps frames outside the build as they are', () => {
    const script = path.join(root, 'run.mjs');
    writeFileSync(
      script,
      `import { mapCompiledStackTraces } from ${JSON.stringify(pathToFileURL(path.join(dist, 'stack-traces.js')).href)};
mapCompiledStackTraces(${JSON.stringify(dist)});
const { fail } = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'shape.js')).href)});
try { fail({ kind: 'circle', size: 1 }, 'broken'); } catch (err) { console.log(err.stack); }
`,
    );
    // Its own process: Error.prepareStackTrace is global to one.
    const out = execFileSync(process.execPath, [script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('Error: circle is broken');
    expect(lines[1]).toBe(`    at fail (${path.join(root, 'src', 'shape.ts')}:9:9)`);
    expect(lines[2]).toBe(`    at ${pathToFileURL(script).href}:4:7`);
  });
});
