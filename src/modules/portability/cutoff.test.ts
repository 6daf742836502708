import { it, expect } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestApp } from '../../test/app.js';

const t = useTestApp();

it('answers 400 MALFORMED_MULTIPART to an import whose body is cut off inside the archive part, and keeps no job', async () => {
  const owner = await t.org();
  const b = '----cut';
  const body = Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n${'x'.repeat(32)}\r\n--${b}--\r\n`);
  const res = await t.app.inject({
    method: 'POST',
    url: '/organization/imports',
    headers: { ...owner.headers, 'content-type': `multipart/form-data; boundary=${b}` },
    payload: body.subarray(0, body.length - 20),
  });
  expect([res.statusCode, res.json().code]).toEqual([400, 'MALFORMED_MULTIPART']);
  expect((await t.sql<{ n: number }>(sql`select count(*)::int as n from portability_jobs where organization_id = ${owner.organizationId}`))[0]!.n).toBe(0);
});
