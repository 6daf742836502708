import { describe, expect, it } from 'vitest';
import { expectProblem, fingerprint, type Method, type TestKit, type TestUser } from './app.js';

export interface World {
  /** The path to call, with ids of resources in `owner`'s organization. */
  url: string;
  /** A user allowed to perform the operation. */
  owner: TestUser;
  /** A valid body (for routes that take one). */
  body?: unknown;
  /** A body that must fail validation with 400 (omit for routes without a body). */
  badBody?: unknown;
  /** A user of the same organization whose role may not perform the operation (omit when every caller may). */
  forbidden?: TestUser;
  /** Further users whose rows must stay unchanged. */
  userIds?: number[];
}

export interface RouteSpec {
  method: Method;
  /** Builds a fresh world for one case. */
  setup(kit: TestKit): Promise<World>;
  /** Whether the path names resources that another organization's user must not see (default: yes when it has numeric ids). */
  foreignId?: boolean;
}

/**
 * The cases every route must pass (DEVELOPERS.md): no credential → 401, another organization's id →
 * 404, a role that may not → 403, a bad body → 400; each refused request leaves the data unchanged.
 */
export function commonCases(kit: TestKit, name: string, spec: RouteSpec): void {
  describe(`${name}: common cases`, () => {
    const unchanged = async (world: World, others: TestUser[], run: () => Promise<void>) => {
      const orgs = [world.owner.organizationId, ...others.map((u) => u.organizationId)];
      const users = [world.owner.id, ...(world.userIds ?? []), ...others.map((u) => u.id)];
      const before = await fingerprint(kit, orgs, users);
      await run();
      expect(await fingerprint(kit, orgs, users)).toBe(before);
    };

    it('answers 401 without a credential, changing nothing', async () => {
      const world = await spec.setup(kit);
      await unchanged(world, [], async () => {
        const res = await kit.as(null).request(spec.method, world.url, world.body);
        expectProblem(res, 401, 'UNAUTHENTICATED');
      });
    });

    it.runIf(spec.foreignId !== false)('answers 404 to another organization, changing nothing', async () => {
      const world = await spec.setup(kit);
      if (!(spec.foreignId ?? /\/\d+(\/|\?|$)/.test(world.url))) return;
      const stranger = await kit.org({ name: 'Stranger' });
      await unchanged(world, [stranger], async () => {
        const res = await kit.as(stranger).request(spec.method, world.url, world.body);
        expectProblem(res, 404);
      });
    });

    it('answers 403 to a role that may not, changing nothing', async () => {
      const world = await spec.setup(kit);
      if (!world.forbidden) return;
      const forbidden = world.forbidden;
      await unchanged(world, [forbidden], async () => {
        const res = await kit.as(forbidden).request(spec.method, world.url, world.body);
        expectProblem(res, 403, 'FORBIDDEN');
      });
    });

    it('answers 400 to a bad body, changing nothing', async () => {
      const world = await spec.setup(kit);
      if (world.badBody === undefined) return;
      await unchanged(world, [], async () => {
        const res = await kit.as(world.owner).request(spec.method, world.url, world.badBody);
        const problem = expectProblem(res, 400);
        expect(typeof problem.detail).toBe('string');
      });
    });
  });
}
