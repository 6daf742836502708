import type { TestKit, TestUser } from './app.js';

type SpaceRole = 'admin' | 'editor' | 'member' | 'reader';

async function created(res: { statusCode: number; body: string; json(): unknown }, what: string) {
  if (res.statusCode !== 201) throw new Error(`creating ${what} failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number } & Record<string, unknown>;
}

/** Builders for the board's resources, all through the HTTP API as the given user. */
export function factories(kit: TestKit) {
  return {
    async space(owner: TestUser, name = 'Space') {
      return created(await kit.as(owner).post('/spaces', { name }), 'space');
    },
    async project(owner: TestUser, spaceId: number, name = 'Project') {
      return created(await kit.as(owner).post('/projects', { spaceId, name }), 'project');
    },
    async stage(owner: TestUser, projectId: number, name = 'Column', order = 0) {
      return created(await kit.as(owner).post(`/projects/${projectId}/stages`, { name, order, tasks: [] }), 'stage');
    },
    async task(owner: TestUser, stageId: number, extra: Record<string, unknown> = {}) {
      const body = (await created(await kit.as(owner).post('/tasks', { name: 'Task', stageId, order: 0, ...extra }), 'task')) as unknown as {
        task: { id: number } & Record<string, unknown>;
      };
      return body.task;
    },
    /** A new organization member (org role `member`) added to the space with the given role, through the share API (`owner` must be a space admin). */
    async spaceMember(owner: TestUser, spaceId: number, role: SpaceRole): Promise<TestUser> {
      const user = await kit.member(owner, 'member');
      const res = await kit.as(owner).post(`/spaces/${spaceId}/members`, { userIds: [user.id], role });
      if (res.statusCode !== 201) throw new Error(`sharing the space failed: ${res.statusCode} ${res.body}`);
      return user;
    },
    /** An owner with a space, a project and `columns` columns, ready for tasks. */
    async board(columns = 2) {
      const owner = await kit.org();
      const space = await this.space(owner);
      const project = await this.project(owner, space.id);
      const stages = [];
      for (let i = 0; i < columns; i++) stages.push(await this.stage(owner, project.id, `Column ${i + 1}`, i));
      return { owner, space, project, stages };
    },
  };
}
