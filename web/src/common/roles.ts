/**
 * Who may do what (routes.md's role column), so screens hide the controls a role may not use; the
 * API refuses them anyway. Organization owners and admins are admins of every space.
 */
type Role = string | undefined;

export const canWriteDocs = (spaceRole: Role) => spaceRole === 'admin' || spaceRole === 'editor';
export const canManageReglaments = (spaceRole: Role) => spaceRole === 'admin' || spaceRole === 'editor';
export const canSeeProjectReport = (spaceRole: Role) => spaceRole === 'admin' || spaceRole === 'editor';
export const canSeeSpaceAnalytics = (spaceRole: Role) => spaceRole === 'admin';
export const isOrganizationAdmin = (organizationRole: Role) => organizationRole === 'owner' || organizationRole === 'admin';
