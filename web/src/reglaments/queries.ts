import { queryOptions } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type Reglament = Schemas['ReglamentFull'];
export type ReglamentItem = Schemas['ReglamentListItem'];
export type Question = Schemas['ReglamentQuestion'];
export type TestResult = Schemas['TestResult'];

export const reglamentKeys = {
  all: ['reglaments'] as const,
  list: (spaceId: number) => ['reglaments', 'space', spaceId] as const,
  one: (reglamentId: number) => ['reglaments', 'one', reglamentId] as const,
  questions: (reglamentId: number) => ['reglaments', 'one', reglamentId, 'questions'] as const,
};

export const reglamentsQuery = (spaceId: number) =>
  queryOptions({
    queryKey: reglamentKeys.list(spaceId),
    queryFn: () => call(api.GET('/spaces/{spaceId}/reglaments', { params: { path: { spaceId }, query: { limit: 500 } } })),
  });

export const reglamentQuery = (reglamentId: number) =>
  queryOptions({
    queryKey: reglamentKeys.one(reglamentId),
    queryFn: () => call(api.GET('/reglaments/{reglamentId}', { params: { path: { reglamentId } } })),
  });

export const questionsQuery = (reglamentId: number) =>
  queryOptions({
    queryKey: reglamentKeys.questions(reglamentId),
    queryFn: () => call(api.GET('/reglaments/{reglamentId}/questions', { params: { path: { reglamentId }, query: { limit: 500 } } })),
  });
