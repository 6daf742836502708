import type { TestKit, TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';

// Test builders for documentation (no production code imports this).

type Json = Record<string, unknown> & { id: number };

async function created(res: { statusCode: number; body: string; json(): unknown }, what: string): Promise<Json> {
  if (res.statusCode !== 201) throw new Error(`creating ${what} failed: ${res.statusCode} ${res.body}`);
  return res.json() as Json;
}

export function docsFactories(t: TestKit) {
  const f = factories(t);
  return {
    ...f,
    async group(owner: TestUser, spaceId: number, name = 'Guides') {
      return created(await t.as(owner).post(`/spaces/${spaceId}/documentation-groups`, { name }), 'documentation group');
    },
    async page(owner: TestUser, spaceId: number, documentationGroupId: number, extra: Record<string, unknown> = {}) {
      return created(await t.as(owner).post('/pages', { spaceId, documentationGroupId, name: 'Page', ...extra }), 'page');
    },
    /** An owner with a space, one documentation group and one page in it. */
    async docs() {
      const owner = await t.org();
      const space = await f.space(owner);
      const group = await this.group(owner, space.id);
      const page = await this.page(owner, space.id, group.id, { name: 'Start', content: '<p>hello</p>' });
      return { owner, space, group, page };
    },
  };
}
