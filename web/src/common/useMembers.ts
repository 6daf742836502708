import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Member } from '../api/client';
import { organizationQuery } from '../api/queries';
import { byUserId } from './people';

/** The organization's members by user id: authors, passers and assignees arrive as user ids. */
export function useMembers(): Map<number, Member> {
  const { data: organization } = useQuery(organizationQuery);
  return useMemo(() => byUserId(organization?.members), [organization]);
}
