import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../../db/client.js';
import { idArray } from '../reglaments.queries.js';
import type { QuestionRecord } from './questions.presenter.js';

/**
 * Questions of a reglament in test order with their answers and files, one statement. Below editor
 * the database itself withholds which answers are right: `isRight` never leaves it for a reader.
 */
export async function queryQuestions(
  db: Queryable,
  reglamentId: number,
  f: { ids?: number[]; showRight: boolean; limit?: number; offset?: number },
): Promise<{ items: QuestionRecord[]; total: number }> {
  const rows = await queryRows<QuestionRecord & { total: number }>(
    db,
    sql`select q.id, q.reglament_id as "reglamentId", q.name, q."order", q.created_at as "createdAt", q.updated_at as "updatedAt",
          (select json_agg(json_build_object('id', a.id, 'name', a.name, 'questionId', a.question_id,
                                             'isRight', case when ${f.showRight} then a.is_right end) order by a.id)
             from reglament_answers a where a.question_id = q.id) as answers,
          (select json_agg(json_build_object('id', fl.id, 'key', fl.key, 'name', fl.name, 'size', fl.size, 'mimeType', fl.mime_type) order by fl.id)
             from reglament_question_files qf join files fl on fl.id = qf.file_id where qf.question_id = q.id) as files,
          count(*) over ()::int as total
        from reglament_questions q
        where q.reglament_id = ${reglamentId} ${f.ids ? sql`and q.id = any(${idArray(f.ids)}::bigint[])` : sql``}
        order by q."order", q.id
        limit ${f.limit ?? 500} offset ${f.offset ?? 0}`,
  );
  return { items: rows, total: Number(rows[0]?.total ?? 0) };
}
