import type { FastifyInstance } from 'fastify';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Actor } from '../../../platform/auth.js';
import { readAs, writeAs, type Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { requireScope, type McpScope } from '../mcp.policy.js';
import { Ambiguous } from '../mcp.names.js';

/** What every tool needs from its session: the app, and who the client said it is. */
export interface ToolEnv {
  app: FastifyInstance;
  clientName(): string;
}

/** The part of the SDK's per-request `extra` tools read: the authenticated actor the endpoint put there. */
export interface ToolExtra {
  authInfo?: { extra?: Record<string, unknown> };
  requestId?: string | number;
}

/** The request's actor, marked with the client so history reads "via <client>". */
export function actorOf(env: ToolEnv, extra: ToolExtra): Actor {
  const actor = extra.authInfo?.extra?.actor as Actor | undefined;
  if (!actor) throw new AppError('UNAUTHENTICATED', 'no credential on this request');
  return { ...actor, via: env.clientName() };
}

export const ok = <T extends object>(structured: T): CallToolResult => ({
  // The text copy is for clients that ignore structured content; task text stays inside JSON strings, as data.
  content: [{ type: 'text', text: JSON.stringify(structured) }],
  structuredContent: structured as Record<string, unknown>,
});

function refused(code: string, message: string, candidates?: unknown[]): CallToolResult {
  const error = { code, message, ...(candidates ? { candidates } : {}) };
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { error } };
}

/**
 * Runs a tool as its user, if its credential has the tool's scope, through the same services the HTTP routes call: a read outside a
 * transaction, a write in one transaction with its history and events. Errors become tool errors
 * (isError) with the catalogue code, never a transport failure; an unexpected one is logged and
 * answered without its detail.
 */
export async function runTool<T extends object>(
  env: ToolEnv,
  extra: ToolExtra,
  scope: McpScope,
  fn: (ctx: Ctx) => Promise<T>,
): Promise<CallToolResult> {
  try {
    const actor = actorOf(env, extra);
    requireScope(actor, scope);
    const result = scope === 'tasks:write' ? await writeAs(env.app, actor, env.app.log, fn) : await readAs(env.app, actor, fn);
    return ok(result);
  } catch (err) {
    if (err instanceof Ambiguous) return refused('AMBIGUOUS_NAME', err.message, err.candidates);
    if (err instanceof AppError) {
      const fields = err.errors?.length ? ` (${err.errors.map((e) => `${e.path} ${e.message}`).join('; ')})` : '';
      return refused(err.code, `${err.message}${fields}`);
    }
    env.app.log.error({ err, tool: true }, 'MCP tool failed');
    return refused('INTERNAL', 'the tool failed unexpectedly; nothing was changed');
  }
}
