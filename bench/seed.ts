/** Seeds the benchmark board through the public HTTP API, the way a client would build it. */
export interface Board {
  session: string;
  userId: number;
  spaceId: number;
  projectId: number;
  stageIds: number[];
  taskIds: number[];
  notes: string[];
  /** Questions for the AI workloads (set once the knowledge base is seeded). */
  questions?: string[];
  /** Small boards for the parallelism workloads (W4p, W4c): two columns and their tasks each. */
  spread?: Array<{ stageIds: number[]; taskIds: number[] }>;
}

export async function call(base: string, session: string | null, method: string, url: string, body?: unknown) {
  const res = await fetch(base + url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(session ? { 'service-session': session } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) {
    const err = new Error(`${method} ${url} → ${res.status} ${text.slice(0, 300)}`) as Error & { status: number; code?: string };
    err.status = res.status;
    try {
      err.code = JSON.parse(text).code;
    } catch {
      // not JSON
    }
    throw err;
  }
  return text ? JSON.parse(text) : null;
}

/** Runs fn over items with a few requests in flight, as a busy client would. */
export async function pool<T>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

export async function seedBoard(base: string, taskCount: number): Promise<Board> {
  const notes: string[] = [];
  const email = `bench-${Date.now()}@example.test`;
  const reg = await call(base, null, 'POST', '/auth/register', { email, password: 'benchmark password', name: 'Bench' });
  const session = reg.session as string;
  const userId = reg.user.id as number;
  const space = await call(base, session, 'POST', '/spaces', { name: 'Bench space' });
  const project = await call(base, session, 'POST', '/projects', { spaceId: space.id, name: 'Bench project' });
  const stageIds: number[] = [];
  for (let i = 0; i < 4; i++) stageIds.push((await call(base, session, 'POST', `/projects/${project.id}/stages`, { name: `Column ${i + 1}`, order: i, tasks: [] })).id);
  // Task properties (labels, subtasks, chat) may not exist in every build; a missing route is
  // reported in the results instead of failing the run, so the seed is never silently thinner.
  const missing = new Set<string>();
  const optional = async (what: string, fn: () => Promise<unknown>) => {
    if (missing.has(what)) return null;
    try {
      return await fn();
    } catch (e) {
      if ((e as { code?: string }).code !== 'ROUTE_NOT_FOUND') throw e;
      missing.add(what);
      notes.push(`seed without ${what}: route missing`);
      return null;
    }
  };
  const label = (await optional('labels', () => call(base, session, 'POST', '/labels', { name: 'bench', color: '#3366ff' }))) as { id: number } | null;
  const taskIds: number[] = new Array(taskCount);
  await pool(Array.from({ length: taskCount }, (_, i) => i), 8, async (i) => {
    const created = await call(base, session, 'POST', '/tasks', {
      name: `Task ${i}`,
      stageId: stageIds[i % 4],
      order: 100000,
      responsibleUserId: [userId],
      description: `Description of task ${i}`,
      importance: i % 4,
    });
    const id = created.task.id as number;
    taskIds[i] = id;
    if (label) await optional('labels', () => call(base, session, 'POST', `/tasks/${id}/labels`, { labelId: label.id }));
    await optional('subtasks', () => call(base, session, 'POST', `/tasks/${id}/subtasks`, { name: `Subtask of ${i}` }));
    await optional('messages', () => call(base, session, 'POST', `/tasks/${id}/messages`, { text: `A message on task ${i}` }));
  });
  return { session, userId, spaceId: space.id, projectId: project.id, stageIds, taskIds, notes };
}

/** `count` more projects in the board's space, each with two columns and `tasks` tasks in the first. */
export async function seedSpread(base: string, board: Board, count: number, tasks: number): Promise<void> {
  board.spread = [];
  for (let p = 0; p < count; p++) {
    const project = await call(base, board.session, 'POST', '/projects', { spaceId: board.spaceId, name: `Spread ${p + 1}` });
    const stageIds: number[] = [];
    for (let i = 0; i < 2; i++) stageIds.push((await call(base, board.session, 'POST', `/projects/${project.id}/stages`, { name: `Column ${i + 1}`, order: i, tasks: [] })).id);
    const taskIds: number[] = [];
    await pool(Array.from({ length: tasks }, (_, i) => i), 8, async (i) => {
      taskIds.push((await call(base, board.session, 'POST', '/tasks', { name: `Spread task ${i}`, stageId: stageIds[0] })).task.id as number);
    });
    board.spread.push({ stageIds, taskIds });
  }
}
