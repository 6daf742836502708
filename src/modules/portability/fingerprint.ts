import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { walkArchive } from './archive.js';
import { exportPlan } from './catalogue.js';
import { archiveLimits, ORGANIZATION_FORMAT } from './limits.js';
import { rewriteRow, type Resolver } from './remap.js';

// Test and bench helper: what an organization archive holds, with every id and file key replaced by
// something that does not depend on the instance, so two instances' archives compare.

type Row = Record<string, unknown>;

/**
 * Changes an import makes on purpose (documented in the report): a webhook comes back disabled
 * (its secret was not exported), and activity timestamps move with every request.
 */
const NORMALIZED: Record<string, string[]> = {
  webhooks: ['enabled'],
  organization_members: ['last_activity_at'],
  organizations: ['created_at', 'updated_at', 'ai_enabled_at'],
};

export interface Fingerprint {
  /** Per table: its rows in order, ids as ranks, people as emails, files as their content digests. */
  tables: Record<string, string[]>;
  /** Digest of every stored file's bytes, by the file's rank. */
  files: Record<string, string>;
}

export async function fingerprintArchive(archive: Buffer): Promise<Fingerprint> {
  const rows = new Map<string, Row[]>();
  const manifest = await walkArchive(Readable.from([archive]), ORGANIZATION_FORMAT, archiveLimits({ fileLimitBytes: 1 << 30 }), {
    table: async (name, data) => {
      const list = rows.get(name) ?? [];
      for (const line of data.toString('utf8').split('\n')) if (line) list.push(JSON.parse(line) as Row);
      rows.set(name, list);
    },
  });
  const ranks = new Map<string, Map<number, number>>();
  for (const [name, list] of rows) {
    const ordered = name === 'users' ? [...list].sort((a, b) => String(a.email).localeCompare(String(b.email))) : list;
    ranks.set(name, new Map(ordered.map((r, i) => [Number(r.id), i + 1])));
  }
  const fileDigest = new Map<string, string>();
  for (const file of rows.get('files') ?? []) {
    fileDigest.set(String(file.key), manifest.entries[`files/${file.id}`]?.sha256 ?? 'missing');
  }
  const cellTables = new Map((rows.get('table_columns') ?? []).filter((c) => c.type === 'user' || c.type === 'task').map((c) => [Number(c.id), `${String(c.type)}s`]));
  const resolve: Resolver = {
    id: (table, old) => ranks.get(table)?.get(old),
    fileKey: (key) => fileDigest.get(key),
    loaded: () => true,
    valueTable: (table, id) => (table === 'table_columns' ? cellTables.get(id) : undefined),
  };
  const tables: Record<string, string[]> = {};
  for (const table of exportPlan()) {
    const list = (rows.get(table.name) ?? []).map((source) => {
      const { row, later } = rewriteRow(table, source, 0, resolve);
      const out = { ...(row ?? { dropped: true }) };
      for (const [column, old] of later) out[column] = resolve.id(table.refs.find((r) => r.column === column)!.table, old);
      if (table.hasId || table.name === 'users' || table.name === 'organizations') out.id = ranks.get(table.name)?.get(Number(source.id));
      if (table.name === 'files') out.key = fileDigest.get(String(source.key));
      for (const column of NORMALIZED[table.name] ?? []) delete out[column];
      return canonical(out);
    });
    tables[table.name] = list.sort();
  }
  const files: Record<string, string> = {};
  for (const [key, digest] of fileDigest) files[String(resolve.id('files', Number((rows.get('files') ?? []).find((f) => f.key === key)?.id)))] = digest;
  return { tables, files };
}

/** One line per table (row count and digest), for a readable difference. */
export function summary(fingerprint: Fingerprint): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [table, list] of Object.entries(fingerprint.tables)) out[table] = `${list.length}:${createHash('sha256').update(list.join('\n')).digest('hex').slice(0, 16)}`;
  return out;
}

/** JSON with every object's keys sorted, at every depth. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value).sort(([a], [b]) => a.localeCompare(b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}
