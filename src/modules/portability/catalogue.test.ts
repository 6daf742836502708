import { describe, expect, it } from 'vitest';
import { CATALOGUE, exportPlan, JSON_ID_KEYS, schemaTables, unclassified } from './catalogue.js';

describe('the export catalogue', () => {
  it('classifies every table of the schema (a new table must say whether and how it is exported)', () => {
    expect(unclassified()).toEqual({ missing: [], unknown: [] });
  });

  it('leaves out every column that looks like a credential', () => {
    const looksSecret = /(^|_)(password|secret|token|encrypted|api_key|code_verifier)(_|$)/;
    const leaked = exportPlan().flatMap((t) => t.columns.filter((c) => looksSecret.test(c.name) && !t.rule.omit?.[c.name]).map((c) => `${t.name}.${c.name}`));
    expect(leaked).toEqual([]);
  });

  it('names only real columns and tables, and loads every table after those its foreign keys need', () => {
    const tables = schemaTables();
    const plan = exportPlan();
    const position = new Map(plan.map((t, i) => [t.name, i]));
    for (const table of plan) {
      const columns = tables.get(table.name)!.config.columns.map((c) => c.name);
      for (const column of [...Object.keys(table.rule.omit ?? {}), ...Object.keys(table.rule.softRefs ?? {}), ...(table.rule.jsonIds ?? []), ...Object.keys(table.rule.jsonKeys ?? {})]) {
        expect(columns, `${table.name}.${column}`).toContain(column);
      }
      for (const ref of table.refs) {
        expect(tables.has(ref.table), `${table.name}.${ref.column} → ${ref.table}`).toBe(true);
        const soft = table.rule.softRefs?.[ref.column] !== undefined;
        if (!soft && ref.table !== table.name && CATALOGUE[ref.table]?.export) expect(position.get(ref.table)!, `${table.name} after ${ref.table}`).toBeLessThan(position.get(table.name)!);
      }
    }
    for (const target of Object.values(JSON_ID_KEYS)) expect(position.has(target), target).toBe(true);
    // The database's own history rows come after every insert that would fire their triggers.
    expect(plan.slice(-2).map((t) => t.name).sort()).toEqual(['task_stage_stays', 'task_status_changes']);
  });
});
