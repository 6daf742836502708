import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { isRetryable } from '../../db/tx.js';
import { systemWrite, type Ctx, type SystemCtx } from '../../platform/context.js';
import { Drain } from '../../platform/jobs.js';
import { AppError } from '../../platform/errors.js';
import { discardEventsSince, emit, eventMark } from '../../platform/events.js';
import { loadTaskRecords, presentTask } from '../tasks/tasks.presenter.js';
import type { TaskDto } from '../tasks/tasks.schemas.js';
import { perform } from './automation.actions.js';
import { conditionsHold } from './automation.conditions.js';
import { setRunDepth } from './automation.queue.js';
import type { Action, Condition } from './automation.schemas.js';

/**
 * Takes queued runs after commit and does them, one transaction per run: the run row is locked
 * (skip locked, so instances share the queue and none takes a run twice), the actions applied
 * inside a savepoint, and the outcome written in the same transaction. A crash before commit leaves
 * the run pending for the next taker; once committed it is done. A failing action undoes the
 * run's other actions (back to the savepoint), and the failure is recorded on the run and the rule
 * and announced as automation.rule.failed.
 *
 * Not on the shared DurableQueue (platform/queue.ts), on purpose: that one leases a row, does the
 * work outside any transaction and records it after, so an item may run twice (at least once). A
 * run's actions are database writes, so here the claim is the row lock of the transaction that
 * applies them and records the outcome: exactly once, with no lease, attempt count or retry to share.
 */

interface RunRow {
  id: number;
  organizationId: number;
  ruleId: number;
  cause: string;
  eventId: number | null;
  taskId: number | null;
  depth: number;
}

interface RuleRow {
  id: number;
  name: string;
  enabled: boolean;
  projectId: number;
  spaceId: number;
  conditions: Condition[];
  actions: Action[];
  creatorId: number | null;
  creatorActive: boolean;
}

/**
 * The system as an actor: organization-wide rights (a rule's reach was checked against its creator
 * when saved), history rows with no user that name the rule. Rows that need a person (a created
 * task's creator) take the rule's creator.
 */
const systemActor = (organizationId: number, rule: RuleRow): Actor => ({
  userId: Number(rule.creatorId),
  organizationId,
  orgRole: 'owner',
  sessionId: null,
  tokenId: null,
  automation: { ruleId: Number(rule.id), ruleName: rule.name },
});

function describe(err: unknown, action: Action | undefined, index: number): string {
  const what = action ? `action ${index + 1} (${action.type}): ` : '';
  if (err instanceof AppError) return `${what}${err.message}`;
  return `${what}internal error`;
}

type Outcome = { status: 'succeeded' } | { status: 'skipped' | 'failed'; error: string };

async function finish(ctx: SystemCtx, run: RunRow, rule: RuleRow | undefined, started: number, outcome: Outcome): Promise<void> {
  const error = outcome.status === 'succeeded' ? null : outcome.error;
  await ctx.db.execute(
    sql`update automation_runs set status = ${outcome.status}, error = ${error}, duration_ms = ${Math.round(performance.now() - started)},
          finished_at = now() where id = ${run.id}`,
  );
  if (!rule || outcome.status === 'skipped') return;
  await ctx.db.execute(sql`update automation_rules set last_run_at = now(), last_error = ${error} where id = ${rule.id}`);
  if (outcome.status === 'failed') {
    emit(ctx.db, {
      type: 'automation.rule.failed',
      projectId: Number(rule.projectId),
      spaceId: Number(rule.spaceId),
      taskId: run.taskId === null ? null : Number(run.taskId),
      actorId: null,
      payload: { ruleId: Number(rule.id), ruleName: rule.name, runId: Number(run.id), eventId: run.eventId === null ? null : Number(run.eventId), taskId: run.taskId === null ? null : Number(run.taskId), error: outcome.error },
    });
  }
}

async function loadTask(ctx: SystemCtx, taskId: number): Promise<TaskDto | null> {
  const [record] = await loadTaskRecords(ctx.db, ctx.organizationId, [taskId]);
  return record ? presentTask(record) : null;
}

/** Does one queued run if it is still pending and nobody else holds it; answers whether it did. */
export async function runOne(app: FastifyInstance, runId: number, organizationId: number): Promise<boolean> {
  return systemWrite(app, organizationId, async (sys) => {
    const [run] = await queryRows<RunRow>(
      sys.db,
      sql`select id, organization_id as "organizationId", rule_id as "ruleId", cause, event_id as "eventId", task_id as "taskId", depth
          from automation_runs where id = ${runId} and status = 'pending' for update skip locked`,
    );
    if (!run) return false;
    const started = performance.now();
    const [rule] = await queryRows<RuleRow>(
      sys.db,
      sql`select r.id, r.name, r.enabled, r.project_id as "projectId", p.space_id as "spaceId", r.conditions, r.actions, r.creator_id as "creatorId",
            coalesce(om.active and om.deleted_at is null, false) as "creatorActive"
          from automation_rules r join projects p on p.id = r.project_id
          left join organization_members om on om.organization_id = r.organization_id and om.user_id = r.creator_id
          where r.id = ${run.ruleId}`,
    );
    if (!rule || !rule.enabled) {
      await finish(sys, run, rule, started, { status: 'skipped', error: 'the rule is disabled' });
      return true;
    }
    if (rule.creatorId === null || !rule.creatorActive) {
      await finish(sys, run, rule, started, { status: 'failed', error: "the rule's creator is no longer a member of the organization; an editor must save the rule again" });
      return true;
    }
    let task: TaskDto | null = null;
    if (run.taskId !== null) {
      task = await loadTask(sys, Number(run.taskId));
      if (!task) {
        await finish(sys, run, rule, started, { status: 'skipped', error: 'the task was deleted' });
        return true;
      }
    }
    if (!conditionsHold(rule.conditions, task)) {
      await finish(sys, run, rule, started, { status: 'skipped', error: 'the conditions did not hold' });
      return true;
    }

    const ctx: Ctx = { ...sys, actor: systemActor(organizationId, rule) };
    // What this run changes may trigger rules in turn, one level deeper.
    setRunDepth(sys.db, Number(run.depth));
    const mark = eventMark(sys.db);
    await sys.db.execute(sql`savepoint automation_run`);
    let index = 0;
    try {
      const rc = { app, ctx, rule: { id: Number(rule.id), name: rule.name, projectId: Number(rule.projectId), spaceId: Number(rule.spaceId) }, run: { id: Number(run.id), cause: run.cause, eventId: run.eventId === null ? null : Number(run.eventId) }, task };
      for (; index < rule.actions.length; index++) await perform(rc, rule.actions[index]!, index);
      await sys.db.execute(sql`release savepoint automation_run`);
      await finish(sys, run, rule, started, { status: 'succeeded' });
    } catch (err) {
      // A deadlock or serialization failure undoes the whole transaction: taken again from the start.
      if (isRetryable(err)) throw err;
      await sys.db.execute(sql`rollback to savepoint automation_run`);
      discardEventsSince(sys.db, mark);
      if (!(err instanceof AppError)) app.log.error({ err, ruleId: Number(rule.id), runId: Number(run.id) }, 'automation action failed');
      await finish(sys, run, rule, started, { status: 'failed', error: describe(err, rule.actions[index], index) });
    }
    return true;
  });
}

/** Works through the queue until it is empty (see Drain: one drain at a time per process). */
export class AutomationEngine {
  private readonly drainer = new Drain(() => this.round());

  constructor(private readonly app: FastifyInstance) {}

  drain(): Promise<void> {
    return this.drainer.run();
  }

  stop(): Promise<void> {
    return this.drainer.stop();
  }

  /** Empty, or every row held by another instance (which finishes them): 0. */
  private async round(): Promise<number> {
    const batch = await queryRows<{ id: number; organizationId: number }>(
      this.app.database.db,
      sql`select id, organization_id as "organizationId" from automation_runs where status = 'pending' order by id limit 20`,
    );
    let did = 0;
    for (const r of batch) {
      if (this.drainer.stopping) break;
      if (await runOne(this.app, Number(r.id), Number(r.organizationId))) did++;
    }
    return did;
  }
}
