import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import * as S from './automation.schemas.js';
import * as rules from './automation.service.js';
import { startAutomation } from './automation.jobs.js';

const tags = ['Automation'];

export default async function automationRoutes(app: App): Promise<void> {
  startAutomation(app);

  app.get(
    '/projects/:projectId/automation-rules',
    {
      schema: {
        tags,
        summary: "A project's automation rules, in the order they run (S:reader)",
        params: S.ProjectParams,
        querystring: S.ListRulesQuery,
        response: { 200: Type.Array(S.AutomationRuleSchema) },
      },
    },
    (request) => read(app, request, (ctx) => rules.listRules(ctx, request.params.projectId, request.query.stageId)),
  );

  app.post(
    '/projects/:projectId/automation-rules',
    {
      schema: {
        tags,
        summary: 'Create an automation rule: trigger → conditions → actions (S:editor)',
        description:
          'Runs after the change that triggers it commits, as the system (history and events carry actorId null and name the rule), exactly once per cause; rules triggered by rules stop at depth 3 with automation.rule.failed. Every id must be usable by the creator now.',
        params: S.ProjectParams,
        body: S.CreateRuleBody,
        response: { 201: S.AutomationRuleSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => rules.createRule(ctx, request.params.projectId, request.body))),
  );

  app.patch(
    '/projects/:projectId/automation-rules/:ruleId',
    {
      schema: {
        tags,
        summary: 'Change an automation rule; the whole rule is checked again (S:editor)',
        params: S.RuleParams,
        body: S.UpdateRuleBody,
        response: { 200: S.AutomationRuleSchema },
      },
    },
    (request) => write(app, request, (ctx) => rules.updateRule(ctx, request.params.projectId, request.params.ruleId, request.body)),
  );

  app.delete(
    '/projects/:projectId/automation-rules/:ruleId',
    { schema: { tags, summary: 'Delete an automation rule; its pending runs stop (S:editor)', params: S.RuleParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => rules.deleteRule(ctx, request.params.projectId, request.params.ruleId));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/projects/:projectId/automation-rules/:ruleId/runs',
    {
      schema: {
        tags,
        summary: "The rule's last runs, newest first, with cause, outcome, duration and error (added) (S:reader)",
        params: S.RuleParams,
        querystring: S.RunsQuery,
        response: { 200: Type.Array(S.AutomationRunSchema) },
      },
    },
    (request) => read(app, request, (ctx) => rules.listRuns(ctx, request.params.projectId, request.params.ruleId, request.query.limit ?? 50)),
  );
}
