import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { organizations } from '../../db/schema/index.js';
import type { Ctx } from '../../platform/context.js';
import { authorizeSwitchChange } from './mcp.policy.js';
import type { McpSwitchDto } from './mcp.schemas.js';

export async function mcpEnabledFor(db: Queryable, organizationId: number): Promise<boolean> {
  const [org] = await db.select({ enabled: organizations.mcpEnabled }).from(organizations).where(eq(organizations.id, organizationId));
  return Boolean(org?.enabled);
}

export async function readMcpSwitch(ctx: Ctx): Promise<McpSwitchDto> {
  return { mcpEnabled: await mcpEnabledFor(ctx.db, ctx.actor.organizationId) };
}

/** Turning it off refuses every open session's next request too: each request reads the switch. */
export async function setMcpSwitch(ctx: Ctx, enabled: boolean): Promise<McpSwitchDto> {
  authorizeSwitchChange(ctx.actor);
  await ctx.db.update(organizations).set({ mcpEnabled: enabled, updatedAt: new Date() }).where(eq(organizations.id, ctx.actor.organizationId));
  return { mcpEnabled: enabled };
}
