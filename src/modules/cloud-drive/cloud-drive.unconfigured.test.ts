import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp } from '../../test/app.js';
import { chat } from '../tasks/messages/messages.fixtures.js';

// Without CLOUD_DRIVE_CLIENT_ID / _SECRET every route answers 409 (after authentication: 401 first).
const t = useTestApp();
const CD = '/integrations/cloud-drive';

describe('cloud drive: not configured', () => {
  it('answers 409 CLOUD_DRIVE_NOT_CONFIGURED on every route, 401 first without a credential', async () => {
    const c = await chat(t);
    const calls: Array<[Parameters<typeof t.as>[0], 'GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?]> = [
      [c.member, 'GET', CD],
      [c.member, 'GET', `${CD}/authorization-url`],
      [null, 'GET', `${CD}/callback?code=a&state=b.c`],
      [c.member, 'DELETE', CD],
      [c.member, 'GET', `${CD}/files`],
      [c.member, 'GET', `${CD}/files/abc/content`],
      [c.member, 'POST', `${CD}/tasks/${c.taskId}/messages`, { text: 'x', driveFileIds: [] }],
      [c.member, 'PATCH', `${CD}/tasks/${c.taskId}/messages/1`, { text: 'x' }],
    ];
    for (const [user, method, url, body] of calls) {
      expectProblem(await t.as(user).request(method, url, body), 409, 'CLOUD_DRIVE_NOT_CONFIGURED');
    }
    expectProblem(await t.as(null).get(`${CD}/files`), 401, 'UNAUTHENTICATED');
    // The ordinary chat is untouched.
    expect((await t.as(c.member).post(`/tasks/${c.taskId}/messages`, { text: 'still here' })).statusCode).toBe(201);
  });
});
