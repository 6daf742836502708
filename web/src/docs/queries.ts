import { queryOptions } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';

export type DocGroup = Schemas['DocumentationGroup'];
export type PageNode = Schemas['PageNode'];
export type Page = Schemas['DocumentationPageFull'];

export const docsKeys = {
  all: ['docs'] as const,
  groups: (spaceId: number) => ['docs', 'groups', spaceId] as const,
  page: (pageId: number) => ['docs', 'page', pageId] as const,
  versions: (pageId: number) => ['docs', 'page', pageId, 'versions'] as const,
};

export const docGroupsQuery = (spaceId: number) =>
  queryOptions({
    queryKey: docsKeys.groups(spaceId),
    queryFn: () => call(api.GET('/spaces/{spaceId}/documentation-groups', { params: { path: { spaceId }, query: { limit: 500 } } })),
  });

export const pageQuery = (pageId: number) =>
  queryOptions({ queryKey: docsKeys.page(pageId), queryFn: () => call(api.GET('/pages/{pageId}', { params: { path: { pageId } } })) });

export const versionsQuery = (pageId: number) =>
  queryOptions({
    queryKey: docsKeys.versions(pageId),
    queryFn: () => call(api.GET('/pages/{pageId}/versions', { params: { path: { pageId }, query: { limit: 100 } } })),
  });
