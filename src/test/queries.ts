import type { TestKit } from './app.js';

/** How many statements the app sent to the database while `run` ran. */
export async function countQueries(kit: TestKit, run: () => Promise<unknown>): Promise<number> {
  const client = (kit.database.db as unknown as { $client: { query: (...args: unknown[]) => unknown } }).$client;
  const original = client.query;
  let n = 0;
  client.query = function (this: unknown, ...args: unknown[]) {
    n++;
    return original.apply(this, args);
  };
  try {
    await run();
  } finally {
    client.query = original;
  }
  return n;
}
