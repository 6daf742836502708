import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The authorization server costs nothing until an OAuth request comes: nothing the service imports
 * at start (statically, from src/app.ts) imports oidc-provider; only oauth.provider.ts does, and it
 * is imported with import() on first use. Type-only imports are erased and do not count.
 */
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function staticImports(file: string): { local: string[]; packages: string[] } {
  const text = readFileSync(file, 'utf8');
  const local: string[] = [];
  const packages: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    if (m[1]) continue;
    const spec = m[2]!;
    if (!spec.startsWith('.')) packages.push(spec);
    else {
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
      if (existsSync(target)) local.push(target);
    }
  }
  return { local, packages };
}

describe('the OAuth authorization server at start', () => {
  it('is not imported by anything the service loads at start', () => {
    const seen = new Set<string>();
    const importers: string[] = [];
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const { local, packages } = staticImports(file);
      if (packages.some((p) => p === 'oidc-provider' || p.startsWith('oidc-provider/'))) importers.push(path.relative(src, file));
      local.forEach(walk);
    };
    walk(path.join(src, 'app.ts'));
    expect(seen.has(path.join(src, 'modules/oauth/oauth.routes.ts'))).toBe(true);
    expect(seen.has(path.join(src, 'modules/oauth/oauth.provider.ts'))).toBe(false);
    expect(importers).toEqual([]);
  });
});
