import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ErrorCode, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { readAs, type Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { EventEnvelope } from '../../platform/events.js';
import type { Subscriber } from '../../platform/realtime.js';
import { getTask } from '../tasks/tasks.service.js';
import { getPage } from '../docs/pages.service.js';
import { getReglament } from '../reglaments/reglaments.service.js';
import { Directory } from './mcp.presenter.js';
import { actorOf, type ToolEnv, type ToolExtra } from './tools/tool.js';
import { requireScope, type McpScope } from './mcp.policy.js';

const TASK_URI = /^workboard:\/\/task\/(\d+)$/;

/** Resource reads go through the same services as the HTTP reads; a refusal is a JSON-RPC error naming the code. */
async function readResource<T>(env: ToolEnv, extra: ToolExtra, scope: McpScope, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  try {
    const actor = actorOf(env, extra);
    requireScope(actor, scope);
    return await readAs(env.app, actor, fn);
  } catch (err) {
    if (err instanceof AppError) throw new McpError(ErrorCode.InvalidParams, `${err.code}: ${err.message}`);
    throw err;
  }
}

const json = (uri: URL, value: unknown) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value) }] });
const idOf = (value: string | string[] | undefined) => Number(Array.isArray(value) ? value[0] : value);

export function registerResources(server: McpServer, env: ToolEnv): void {
  server.registerResource(
    'task',
    new ResourceTemplate('workboard://task/{id}', { list: undefined }),
    { title: 'Task', description: 'A task (JSON); subscribe to hear of its changes', mimeType: 'application/json' },
    (uri, vars, extra) =>
      readResource(env, extra, 'tasks:read', async (ctx) => json(uri, await new Directory(ctx, env.app.config.publicUrl).task(await getTask(ctx, idOf(vars.id))))),
  );
  server.registerResource(
    'page',
    new ResourceTemplate('workboard://page/{id}', { list: undefined }),
    { title: 'Documentation page', description: 'A documentation page as stored (HTML or Markdown)', mimeType: 'text/html' },
    (uri, vars, extra) =>
      readResource(env, extra, 'docs:read', async (ctx) => {
        const page = await getPage(ctx, { publicUrl: env.app.config.publicUrl }, idOf(vars.id));
        return { contents: [{ uri: uri.href, mimeType: 'text/html', text: page.content }] };
      }),
  );
  server.registerResource(
    'reglament',
    new ResourceTemplate('workboard://reglament/{id}', { list: undefined }),
    { title: 'Reglament', description: 'A reglament as stored (HTML or Markdown)', mimeType: 'text/html' },
    (uri, vars, extra) =>
      readResource(env, extra, 'docs:read', async (ctx) => {
        const { reglament } = await getReglament(ctx, idOf(vars.id));
        return { contents: [{ uri: uri.href, mimeType: 'text/html', text: reglament.content }] };
      }),
  );
}

/**
 * Subscriptions to tasks, fed by the real-time hub: the same change log, the same per-event read
 * check at delivery, the same cut-off of a revoked credential as the WebSocket and SSE streams.
 */
export function registerSubscriptions(server: McpServer, env: ToolEnv, credentialHash: string, onRevoked: () => void): () => void {
  const taskIds = new Set<number>();
  let sub: Subscriber | null = null;
  const hub = env.app.realtime;
  const notify = (e: EventEnvelope) => {
    if (e.taskId !== null && taskIds.has(e.taskId)) void server.server.sendResourceUpdated({ uri: `workboard://task/${e.taskId}` }).catch(() => {});
  };
  const refresh = () => {
    if (sub) sub.subscriptions = [{ id: 1, taskIds: [...taskIds] }];
  };

  server.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const m = TASK_URI.exec(request.params.uri);
    if (!m) throw new McpError(ErrorCode.InvalidParams, 'only tasks (workboard://task/{id}) can be subscribed to');
    const task = await readResource(env, extra, 'tasks:read', (ctx) => getTask(ctx, Number(m[1])));
    const actor = actorOf(env, extra);
    taskIds.add(task.id);
    if (!sub) {
      sub = {
        userId: actor.userId,
        organizationId: actor.organizationId,
        credentialHash,
        cursor: 0,
        subscriptions: [],
        send: notify,
        control: () => {},
        close: () => onRevoked(),
        buffered: () => 0,
      };
      refresh();
      await hub.start(sub, null);
    }
    refresh();
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const m = TASK_URI.exec(request.params.uri);
    if (m) taskIds.delete(Number(m[1]));
    refresh();
    return {};
  });
  return () => {
    if (sub) hub.stop(sub);
    sub = null;
  };
}
