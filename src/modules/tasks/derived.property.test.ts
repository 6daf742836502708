import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';
import { boardWithRoles } from './tasks.fixtures.js';

/**
 * Property: whatever sequence of checklist, chat, description and time-record operations runs
 * through the API, a task read afterwards derives `list`, `checklist`, `hasMessages`,
 * `hasDescription` and `factTime` exactly from its rows, and the rows hold what the operations did.
 */

const t = useTestApp();

type Op =
  | { k: 'addSubtask'; name: string; order: number | null }
  | { k: 'check'; i: number; isChecked: boolean }
  | { k: 'deleteSubtask'; i: number }
  | { k: 'send'; text: string }
  | { k: 'deleteMessage'; i: number }
  | { k: 'describe'; description: string | null }
  | { k: 'addRecord'; hours: number }
  | { k: 'editRecord'; i: number; hours: number }
  | { k: 'deleteRecord'; i: number };

// Quarter hours: exact in binary floating point, so sums compare with toBe.
const hours = fc.integer({ min: 1, max: 96 }).map((q) => q / 4);
const index = fc.nat({ max: 20 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant('addSubtask' as const), name: fc.stringMatching(/^[a-z][a-z ]{0,11}$/), order: fc.option(fc.nat({ max: 5 })) }),
  fc.record({ k: fc.constant('check' as const), i: index, isChecked: fc.boolean() }),
  fc.record({ k: fc.constant('deleteSubtask' as const), i: index }),
  fc.record({ k: fc.constant('send' as const), text: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '') }),
  fc.record({ k: fc.constant('deleteMessage' as const), i: index }),
  fc.record({ k: fc.constant('describe' as const), description: fc.oneof(fc.constant(null), fc.constant(''), fc.string({ minLength: 1, maxLength: 30 })) }),
  fc.record({ k: fc.constant('addRecord' as const), hours }),
  fc.record({ k: fc.constant('editRecord' as const), i: index, hours }),
  fc.record({ k: fc.constant('deleteRecord' as const), i: index }),
);

describe('derived task fields', () => {
  let board: Awaited<ReturnType<typeof boardWithRoles>>;
  beforeAll(async () => {
    board = await boardWithRoles(t);
  });

  it('agree with the rows after any sequence of operations', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const user = board.member;
        const api = t.as(user);
        const task = await board.f.task(board.owner, board.stageIds[0]!, { name: 'Property' });
        const taskId = Number(task.id);
        // The model: what the rows must hold after the operations.
        const subtasks: Array<{ id: number; isChecked: boolean }> = [];
        const messages: number[] = [];
        const records: Array<{ id: number; hours: number }> = [];
        let description: string | null = null;
        const pick = <T>(list: T[], i: number): T | undefined => (list.length === 0 ? undefined : list[i % list.length]);
        const ok = (res: { statusCode: number; body: string }, status: number) => {
          if (res.statusCode !== status) throw new Error(`${JSON.stringify(ops)}: expected ${status}, got ${res.statusCode} ${res.body}`);
        };

        for (const o of ops) {
          switch (o.k) {
            case 'addSubtask': {
              const res = await api.post(`/tasks/${taskId}/subtasks`, o.order === null ? { name: o.name } : { name: o.name, order: o.order });
              ok(res, 201);
              const before = new Set(subtasks.map((s) => s.id));
              const list = res.json().task.list as Array<{ id: number }>;
              const at = list.findIndex((s) => !before.has(s.id));
              subtasks.splice(at, 0, { id: list[at]!.id, isChecked: false });
              break;
            }
            case 'check': {
              const s = pick(subtasks, o.i);
              if (!s) break;
              ok(await api.patch(`/tasks/${taskId}/subtasks/${s.id}/is-checked`, { isChecked: o.isChecked }), 200);
              s.isChecked = o.isChecked;
              break;
            }
            case 'deleteSubtask': {
              const s = pick(subtasks, o.i);
              if (!s) break;
              ok(await api.delete(`/tasks/${taskId}/subtasks/${s.id}`), 200);
              subtasks.splice(subtasks.indexOf(s), 1);
              break;
            }
            case 'send': {
              const res = await api.post(`/tasks/${taskId}/messages`, { text: o.text });
              ok(res, 201);
              messages.push(res.json().id);
              break;
            }
            case 'deleteMessage': {
              const id = pick(messages, o.i);
              if (id === undefined) break;
              ok(await api.delete(`/tasks/${taskId}/messages/${id}`), 204);
              messages.splice(messages.indexOf(id), 1);
              break;
            }
            case 'describe':
              ok(await api.patch(`/tasks/${taskId}/description`, { description: o.description }), 200);
              description = o.description;
              break;
            case 'addRecord': {
              const res = await api.post('/time-records', { taskId, hours: o.hours, date: '2026-01-15' });
              ok(res, 201);
              records.push({ id: res.json().record.id, hours: o.hours });
              break;
            }
            case 'editRecord': {
              const r = pick(records, o.i);
              if (!r) break;
              ok(await api.patch(`/time-records/${r.id}`, { hours: o.hours }), 200);
              r.hours = o.hours;
              break;
            }
            case 'deleteRecord': {
              const r = pick(records, o.i);
              if (!r) break;
              ok(await api.delete(`/time-records/${r.id}`), 200);
              records.splice(records.indexOf(r), 1);
              break;
            }
          }
        }

        const read = await t.as(board.reader).get(`/tasks/${taskId}`);
        ok(read, 200);
        const shown = read.json();
        const rows = await t.sql<{ id: number; isChecked: boolean; order: number }>(
          sql`select id, is_checked as "isChecked", "order" from subtasks where task_id = ${taskId} order by "order", id`,
        );
        const [facts] = await t.sql<{ messages: number; described: boolean; fact: number }>(
          sql`select (select count(*)::int from task_messages where task_id = ${taskId}) as messages,
                (select coalesce(description, '') <> '' from tasks where id = ${taskId}) as described,
                (select coalesce(sum(hours), 0)::float8 from time_records where task_id = ${taskId}) as fact`,
        );

        // The rows hold what the operations did…
        expect(rows.map((r) => ({ id: Number(r.id), isChecked: r.isChecked }))).toEqual(subtasks);
        expect(rows.map((r) => Number(r.order))).toEqual(rows.map((_, i) => i));
        expect(facts!.messages).toBe(messages.length);
        expect(facts!.described).toBe((description ?? '') !== '');
        expect(Number(facts!.fact)).toBe(records.reduce((sum, r) => sum + r.hours, 0));
        // …and the task form is derived from exactly those rows.
        expect(shown.list.map((s: { id: number; isChecked: boolean; order: string }) => [s.id, s.isChecked, s.order])).toEqual(
          rows.map((r) => [Number(r.id), r.isChecked, String(r.order)]),
        );
        expect(shown.checklist).toEqual({ items: rows.length, itemsChecked: rows.filter((r) => r.isChecked).length });
        expect(shown.hasMessages).toBe(facts!.messages > 0);
        expect(shown.hasDescription).toBe(facts!.described);
        expect(shown.factTime).toBe(Number(facts!.fact));
      }),
      { numRuns: 15 },
    );
  });
});
