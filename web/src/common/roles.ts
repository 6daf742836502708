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

const editsSpace = (spaceRole: Role) => spaceRole === 'admin' || spaceRole === 'editor';
/** Task properties, checklists, covers, labels on a task: S:member. */
export const canEditTasks = (spaceRole: Role) => spaceRole === 'admin' || spaceRole === 'editor' || spaceRole === 'member';
/** Columns (add, rename, limit, colour, order, delete): S:editor. */
export const canManageColumns = editsSpace;
/** Archive and restore are `S:member*`: a member's own tasks, any task for editors. */
export const canRestoreTask = (spaceRole: Role, task: { creatorId: number | null }, userId: number | undefined) =>
  editsSpace(spaceRole) || (spaceRole === 'member' && task.creatorId !== null && task.creatorId === userId);
/** Labels are the organization's: editors of any space create and change them, organization admins delete them. */
export const canManageLabels = (organizationRole: Role, spaceRoles: Role[]) => isOrganizationAdmin(organizationRole) || spaceRoles.some(editsSpace);
export const canDeleteLabels = isOrganizationAdmin;
/** A chat message is edited by its author alone (whatever the role) and deleted by its author or a space editor. */
export const canEditMessage = (message: { authorId: number | null }, userId: number | undefined) => message.authorId !== null && message.authorId === userId;
export const canDeleteMessage = (spaceRole: Role, message: { authorId: number | null }, userId: number | undefined) => canEditMessage(message, userId) || editsSpace(spaceRole);
