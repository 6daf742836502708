import type { TestKit } from './app.js';

/**
 * How many statements the app sent to the database while `run` ran, not counting the rate limiter's
 * counter on PostgreSQL (a shared row it syncs on a timer of its own, whatever the request asked).
 */
export async function countQueries(kit: TestKit, run: () => Promise<unknown>): Promise<number> {
  const client = (kit.database.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const original = client.query;
  let n = 0;
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    if (!text.includes('insert into rate_limits')) n++;
    return original.apply(this, args);
  };
  try {
    await run();
  } finally {
    client.query = original;
  }
  return n;
}
