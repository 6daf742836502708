import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import * as S from './time.schemas.js';
import * as records from './records.service.js';
import * as timers from './timers.service.js';

export default async function timeRoutes(app: App): Promise<void> {
  const tags = ['Time tracking'];

  app.get(
    '/time-records',
    {
      schema: {
        tags,
        summary: 'Time records of tasks you can read, newest day first',
        description: 'A `taskId` or `projectId` filter must name a task or project you can read (404 otherwise). Dates are inclusive.',
        querystring: S.RecordsQuery,
        response: { 200: Type.Array(S.TimeRecordSchema) },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => records.listTimeRecords(ctx, request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query));
      return result.items;
    },
  );

  app.post(
    '/time-records',
    {
      schema: {
        tags,
        summary: 'Log time spent on a task (adds to its factTime)',
        body: S.CreateRecordBody,
        response: { 201: S.RecordResult },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => records.createTimeRecord(ctx, request.body))),
  );

  app.patch(
    '/time-records/:recordId',
    {
      schema: {
        tags,
        summary: 'Change a time record (your own as member, anyone’s as editor)',
        params: S.RecordParams,
        body: S.UpdateRecordBody,
        response: { 200: S.RecordResult },
      },
    },
    (request) => write(app, request, (ctx) => records.updateTimeRecord(ctx, request.params.recordId, request.body)),
  );

  app.delete(
    '/time-records/:recordId',
    {
      schema: {
        tags,
        summary: 'Delete a time record (your own as member, anyone’s as editor)',
        params: S.RecordParams,
        response: { 200: S.TaskWithHistoryResult },
      },
    },
    (request) => write(app, request, (ctx) => records.deleteTimeRecord(ctx, request.params.recordId)),
  );

  const timerTags = ['Timers'];

  app.get(
    '/timers',
    {
      schema: {
        tags: timerTags,
        summary: 'Timers of the organization: your own, or anyone’s for organization admins',
        querystring: S.TimersQuery,
        response: { 200: Type.Array(S.TimerSchema) },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => timers.listTimers(ctx, request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query));
      return result.items;
    },
  );

  app.post(
    '/timers',
    {
      schema: {
        tags: timerTags,
        summary: 'Start a timer on a task',
        description:
          'One running timer per user: a running timer on another task is stopped first and its time record written. A running timer on the same task is answered as it is.',
        body: S.StartTimerBody,
        response: { 201: S.TimerSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => timers.startTimer(ctx, request.body.taskId))),
  );

  app.get(
    '/projects/:projectId/timers',
    {
      schema: {
        tags: timerTags,
        summary: 'Timers started on tasks of a project',
        params: S.ProjectParams,
        querystring: S.ProjectTimersQuery,
        response: { 200: Type.Array(S.TimerSchema) },
      },
    },
    async (request, reply) => {
      const result = await read(app, request, (ctx) => timers.listProjectTimers(ctx, request.params.projectId, request.query));
      setPageHeaders(request, reply, result.total, pageOf(request.query));
      return result.items;
    },
  );

  app.patch(
    '/timers/:timerId/stop',
    {
      schema: {
        tags: timerTags,
        summary: 'Stop your running timer, logging its time on the task',
        description: 'Writes a time record (source `timer`): the elapsed time rounded to minutes, at least one minute, at most 24 h, dated the day it started (UTC).',
        params: S.TimerParams,
        body: S.StopTimerBody,
        response: { 200: S.StopResult },
      },
      // The comment is optional, so a client may send no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    (request) => write(app, request, (ctx) => timers.stopTimer(ctx, request.params.timerId, request.body.comment ?? null)),
  );
}
