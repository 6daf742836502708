import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Packages that cost memory from the moment they are imported but serve few requests are loaded on
 * first use, with import(), never by what the service imports at start (statically, from
 * src/app.ts): an idle server does not hold them (issue 42). Type-only imports are erased and do
 * not count.
 */
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Each package, and what loads it when it is needed.
const LAZY: Array<[pkg: string, loadedBy: string]> = [
  ['oidc-provider', 'the first OAuth request (modules/oauth/oauth.routes.ts imports oauth.provider.ts)'],
  ['@electric-sql/pglite', 'opening the embedded database (db/client.ts); never on PostgreSQL'],
  ['drizzle-orm/pglite', 'opening and migrating the embedded database (db/client.ts, db/migrate.ts)'],
  ['marked', 'the first indexing job (ai/index/chunking.ts) or public page (docs/render.ts)'],
  ['oauth4webapi', 'the first cloud-drive request (cloud-drive/drive.client.ts)'],
  ['otpauth', 'the first TOTP enrolment or code (auth/two-factor/two-factor.totp.ts)'],
  ['csv-parse', 'the first CSV import (imports/csv.map.ts)'],
  ['csv-stringify', 'the first CSV answer (platform/csv.ts)'],
  ['tar-stream', 'the first export, import or backup archive (portability/archive.ts)'],
  ['typebox/value', "the first WebSocket client frame (events/ws.connection.ts)"],
  ['croner', 'the first schedule rule written or due (automation/automation.validate.ts)'],
];

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

/** Every file the service imports at start, and the packages each imports. */
function startGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (file: string) => {
    if (graph.has(file)) return;
    const { local, packages } = staticImports(file);
    graph.set(file, packages);
    local.forEach(walk);
  };
  walk(path.join(src, 'app.ts'));
  return graph;
}

const isOrUnder = (spec: string, pkg: string) => spec === pkg || spec.startsWith(`${pkg}/`);

describe('packages loaded on first use', () => {
  const graph = startGraph();

  it.each(LAZY)('%s is not imported by anything the service loads at start (loaded by %s)', (pkg) => {
    const importers = [...graph].filter(([, packages]) => packages.some((p) => isOrUnder(p, pkg))).map(([file]) => path.relative(src, file));
    expect(importers).toEqual([]);
  });

  it('the OAuth authorization server: its routes are registered at start, its provider is not imported', () => {
    expect(graph.has(path.join(src, 'modules/oauth/oauth.routes.ts'))).toBe(true);
    expect(graph.has(path.join(src, 'modules/oauth/oauth.provider.ts'))).toBe(false);
  });
});
