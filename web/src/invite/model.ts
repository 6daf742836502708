/**
 * After joining by link, the organization to make active: the join answers the space membership
 * only, and the link names its organization by name. Null when the active one already has that
 * name, or when the name is not unique among the user's organizations (the switcher is left to them).
 */
export function organizationToOpen(organizations: Array<{ id: number; name: string | null; active: boolean }>, name: string | null): number | null {
  if (organizations.some((o) => o.active && o.name === name)) return null;
  const named = organizations.filter((o) => o.name === name);
  return named.length === 1 ? named[0]!.id : null;
}
