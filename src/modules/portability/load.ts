import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { FileStore } from '../../platform/files.js';
import { AppError } from '../../platform/errors.js';
import { newSecret } from '../webhooks/signing.js';
import { JSON_ID_KEYS, type TableInfo } from './catalogue.js';
import { rewriteRow, type Resolver } from './remap.js';
import { insertRows, newIds, setColumn } from './rows.js';
import { Report } from './report.js';
import { INVITED_PASSWORD_HASH } from '../../db/schema/users.js';

export { INVITED_PASSWORD_HASH };

type Row = Record<string, unknown>;

/**
 * Loads an organization archive's rows into a new organization, inside the caller's transaction:
 * every id is new (taken from the table's own sequence, in the archive's order, so orders by id
 * survive), people are matched by email, files get new keys, and their bytes are written under them
 * (removed again if the transaction rolls back).
 */
export class OrganizationLoader implements Resolver {
  readonly report = new Report();
  /** The accounts made for people of the archive who had none here (pending invitations). */
  readonly invited: number[] = [];
  private readonly ids = new Map<string, Map<number, number>>();
  private readonly keys = new Map<string, string>();
  private readonly blobKeys = new Map<number, string>();
  private readonly done = new Set<string>();
  private current: string | null = null;
  private readonly later = new Map<string, [number, number][]>();
  private readonly pending: SQL[] = [];
  private readonly referenced: Set<string>;
  /** Table columns (archive ids) whose cells name users or tasks. */
  private readonly cellTables = new Map<number, string>();

  constructor(
    private readonly db: Queryable,
    private readonly tables: Map<string, TableInfo>,
    private readonly organizationId: number,
    private readonly importer: { id: number; email: string },
    private readonly store: FileStore,
    private readonly onRollback: (fn: () => Promise<void>) => void,
    private readonly progress: (rows: number) => Promise<void> = async () => {},
  ) {
    this.referenced = new Set(['organizations', ...Object.values(JSON_ID_KEYS)]);
    for (const table of tables.values()) {
      for (const ref of table.refs) this.referenced.add(ref.table);
      for (const target of [...Object.values(table.rule.jsonKeys ?? {}), ...(table.rule.jsonKeyValues ?? [])]) this.referenced.add(target);
    }
  }

  id(table: string, old: number): number | undefined {
    return this.ids.get(table)?.get(old);
  }

  fileKey(old: string): string | undefined {
    return this.keys.get(old);
  }

  loaded(table: string): boolean {
    return this.done.has(table);
  }

  valueTable(table: string, id: number): string | undefined {
    return table === 'table_columns' ? this.cellTables.get(id) : undefined;
  }

  private remember(table: string, old: number, id: number): void {
    // Only ids something refers to are kept: the map is the one thing here that grows with the archive.
    if (!this.referenced.has(table)) return;
    let map = this.ids.get(table);
    if (!map) this.ids.set(table, (map = new Map()));
    map.set(old, id);
  }

  /** A chunk of a table's JSON Lines. */
  async table(name: string, data: Buffer): Promise<void> {
    const table = this.tables.get(name);
    if (!table) {
      this.report.skip(`${name}: not a table this service imports`, 1);
      return;
    }
    if (this.current !== name) {
      if (this.current) this.done.add(this.current);
      this.current = name;
      // The import's own inserts made these rows (triggers); the archive's are the true history.
      if (table.rule.filledByTrigger) await this.db.execute(sql`delete from ${sql.identifier(name)} where organization_id = ${this.organizationId}`);
    }
    const rows = data
      .toString('utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Row);
    if (name === 'organizations') await this.organization(rows[0]);
    else if (name === 'users') await this.users(rows);
    else await this.rows(table, rows);
    await this.progress(rows.length);
  }

  private async organization(row: Row | undefined): Promise<void> {
    if (!row) return;
    this.remember('organizations', Number(row.id), this.organizationId);
    await this.db.execute(sql`update organizations set name = ${(row.name as string | null) ?? null}, ai_enabled = ${Boolean(row.ai_enabled)} where id = ${this.organizationId}`);
    if (row.avatar_file_id != null) this.defer('organizations', 'avatar_file_id', this.organizationId, Number(row.avatar_file_id));
    this.report.count('organizations', 1);
  }

  /** People: the account with the same email, or a new one that is a pending invitation. */
  private async users(rows: Row[]): Promise<void> {
    const emails = rows.map((r) => String(r.email).toLowerCase());
    const found = await queryRows<{ id: number; email: string }>(this.db, sql`select id, lower(email) as email from users where lower(email) in (select jsonb_array_elements_text(${JSON.stringify(emails)}::jsonb))`);
    const existing = new Map(found.map((u) => [u.email, Number(u.id)]));
    const fresh = rows.filter((r) => !existing.has(String(r.email).toLowerCase()));
    const ids = await newIds(this.db, 'users', fresh.length);
    const table = this.tables.get('users')!;
    await insertRows(this.db, table, fresh.map((r, i) => ({ ...pick(r, table), id: ids[i], password_hash: INVITED_PASSWORD_HASH })));
    fresh.forEach((r, i) => this.remember('users', Number(r.id), ids[i]!));
    this.invited.push(...ids);
    for (const r of rows) {
      const id = existing.get(String(r.email).toLowerCase());
      if (id !== undefined) this.remember('users', Number(r.id), id);
    }
    this.report.count('usersMatched', rows.length - fresh.length);
    this.report.count('usersInvited', fresh.length);
  }

  private async rows(table: TableInfo, source: Row[]): Promise<void> {
    const kept: { row: Row; old: number; later: [string, number][] }[] = [];
    for (const original of source) {
      // An archive's manifest is not signed: a column this service never exports is never taken from one.
      for (const column of Object.keys(table.rule.omit ?? {})) delete original[column];
      if (table.name === 'table_columns' && (original.type === 'user' || original.type === 'task')) this.cellTables.set(Number(original.id), `${original.type}s`);
      const special = this.before(table.name, original);
      if (!special) continue;
      const { row, later, notes } = rewriteRow(table, special, this.organizationId, this);
      for (const note of notes) this.report.skip(note, 1);
      if (row) kept.push({ row, old: Number(original.id), later });
    }
    if (table.hasId) {
      const ids = await newIds(this.db, table.name, kept.length);
      kept.forEach((k, i) => {
        k.row.id = ids[i];
        this.remember(table.name, k.old, ids[i]!);
        for (const [column, old] of k.later) this.defer(table.name, column, ids[i]!, old);
      });
    } else if (kept.some((k) => k.later.length > 0)) {
      throw new AppError('ARCHIVE_INVALID', `${table.name} refers forward but has no id to fill it in later`);
    }
    for (const statement of this.pending.splice(0)) await this.db.execute(statement);
    if (table.name === 'files') this.fileKeys(kept.map((k) => k.row), kept.map((k) => k.old));
    await insertRows(this.db, table, kept.map((k) => k.row));
    this.report.count(table.name, kept.length);
  }

  /** Table-specific rules before the generic rewrite; null leaves the row out. */
  private before(table: string, row: Row): Row | null {
    if (table === 'organization_members') {
      // The importing user already owns the new organization (their membership keeps its date); nobody else can.
      if (this.id('users', Number(row.user_id)) === this.importer.id) {
        this.pending.push(sql`update organization_members set created_at = ${String(row.created_at)}::timestamptz
          where organization_id = ${this.organizationId} and user_id = ${this.importer.id}`);
        return null;
      }
      if (row.role === 'owner') {
        this.report.skip('organization_members: the former owner became an admin (the importing user owns the new organization)', 1);
        return { ...row, role: 'admin' };
      }
    }
    if (table === 'webhooks') {
      this.report.skip('webhooks: imported disabled, with a new signing secret (secrets are never exported)', 1);
      return { ...row, secret: newSecret(), enabled: false };
    }
    return row;
  }

  private fileKeys(rows: Row[], olds: number[]): void {
    rows.forEach((row, i) => {
      const key = randomUUID();
      this.keys.set(String(row.key), key);
      this.blobKeys.set(olds[i]!, key);
      row.key = key;
    });
  }

  private defer(table: string, column: string, id: number, old: number): void {
    const k = `${table}.${column}`;
    let pairs = this.later.get(k);
    if (!pairs) this.later.set(k, (pairs = []));
    pairs.push([id, old]);
  }

  /** A stored file's bytes, under the key its row got. */
  async file(name: string, _size: number, body: AsyncIterable<Buffer>): Promise<void> {
    const key = this.blobKeys.get(Number(name.slice('files/'.length)));
    if (!key) {
      for await (const _ of body);
      this.report.skip('files: bytes without a file row, left out', 1);
      return;
    }
    this.onRollback(() => this.store.remove(key));
    await this.store.backend.write(key, Readable.from(body));
    this.report.count('storedFiles', 1);
  }

  /** References that pointed forward or to their own table, now that every row is in. */
  async finish(): Promise<void> {
    if (this.current) this.done.add(this.current);
    for (const [k, pairs] of this.later) {
      const [table, column] = k.split('.') as [string, string];
      const target = this.tables.get(table)!.refs.find((r) => r.column === column)!.table;
      const resolved: [number, number][] = [];
      for (const [id, old] of pairs) {
        const found = this.id(target, old);
        if (found === undefined) this.report.skip(`${table}.${column}: emptied, the ${target} row it named is not in the archive`, 1);
        else resolved.push([id, found]);
      }
      await setColumn(this.db, table, column, resolved);
    }
    // Every imported member keeps a seat, whatever the new organization's trial allows.
    await this.db.execute(
      sql`update organizations set available_users_count = greatest(available_users_count,
            (select count(*) from organization_members where organization_id = ${this.organizationId} and deleted_at is null)) where id = ${this.organizationId}`,
    );
  }
}

/** The columns of a row that the table has (an archive may carry more). */
function pick(row: Row, table: TableInfo): Row {
  const out: Row = {};
  for (const column of table.columns) if (column.name in row && !table.rule.omit?.[column.name]) out[column.name] = row[column.name];
  return out;
}
