import type { Member } from '../api/client';

const PALETTE = ['#2563eb', '#7c3aed', '#db2777', '#c2410c', '#047857', '#0e7490', '#4d7c0f', '#b91c1c'];

export const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join('') || '?';

export function Avatar({ member, size = 24 }: { member: Pick<Member, 'userId' | 'name'> | undefined; size?: number }) {
  const name = member?.name ?? 'Unknown';
  const color = PALETTE[(member?.userId ?? 0) % PALETTE.length];
  return (
    <span className="avatar" title={name} style={{ background: color, width: size, height: size, fontSize: size * 0.42 }} aria-label={name} role="img">
      {initials(name)}
    </span>
  );
}

/** Organization members by user id (assignees, authors, mentions are user ids). */
export const byUserId = (members: Member[] | undefined) => new Map((members ?? []).map((m) => [m.userId, m]));
