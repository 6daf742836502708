import { describe, expect, it } from 'vitest';
import { expectProblem, useTestApp, type TestKit } from '../../test/app.js';
import { commonCases, type World } from '../../test/common-cases.js';
import { chat } from '../tasks/messages/messages.fixtures.js';
import { connect, useFakeDrive } from './cloud-drive.fixtures.js';

// The common cases of every route (401, another organization's task 404, 403, 400), with the drive
// configured against the fake provider; and the whole module switched off.

const { fake, overrides } = useFakeDrive();
const t = useTestApp(overrides);
const CD = '/integrations/cloud-drive';

async function connected(kit: TestKit) {
  const c = await chat(kit);
  await connect(kit, fake, c.member, `${c.member.email}.drive`);
  return c;
}

const self = (url: string) => async (kit: TestKit): Promise<World> => ({ url, owner: (await connected(kit)).member });

commonCases(t, `GET ${CD}`, { method: 'GET', setup: self(CD), foreignId: false });
commonCases(t, `GET ${CD}/authorization-url`, { method: 'GET', setup: self(`${CD}/authorization-url`), foreignId: false });
commonCases(t, `DELETE ${CD}`, { method: 'DELETE', setup: self(CD), foreignId: false });
commonCases(t, `GET ${CD}/files`, { method: 'GET', setup: self(`${CD}/files`), foreignId: false });
commonCases(t, `POST ${CD}/files`, { method: 'POST', setup: self(`${CD}/files`), foreignId: false });
commonCases(t, `GET ${CD}/files/{fileId}/content`, { method: 'GET', setup: self(`${CD}/files/abc/content`), foreignId: false });

commonCases(t, `POST ${CD}/tasks/{taskId}/messages`, {
  method: 'POST',
  setup: async (kit) => {
    const c = await connected(kit);
    const id = fake.addFile(`${c.member.email}.drive`, { name: 'x.txt', content: 'x' });
    return { url: `${CD}/tasks/${c.taskId}/messages`, owner: c.member, body: { text: 'see', driveFileIds: [id] }, badBody: { driveFileIds: 'abc' } };
  },
});

commonCases(t, `PATCH ${CD}/tasks/{taskId}/messages/{messageId}`, {
  method: 'PATCH',
  setup: async (kit) => {
    const c = await connected(kit);
    const message = await c.send(c.member, 'mine');
    // A space editor may delete any message, but edit only their own.
    return { url: `${CD}/tasks/${c.taskId}/messages/${message.id}`, owner: c.member, body: { text: 'changed' }, badBody: {}, forbidden: c.editor };
  },
});

describe('the task routes: a reader of the space may send, only the author may edit', () => {
  it('a space reader sends with drive files; the task owner (space admin) may not edit it', async () => {
    const c = await chat(t);
    await connect(t, fake, c.reader, 'reader@drive.test');
    const id = fake.addFile('reader@drive.test', { name: 'r.txt', content: 'r' });
    const sent = await t.as(c.reader).post(`${CD}/tasks/${c.taskId}/messages`, { driveFileIds: [id] });
    expect(sent.statusCode).toBe(201);
    expect(sent.json()).toMatchObject({ authorId: c.reader.id, text: '', attachments: [{ name: 'r.txt', source: 'cloud-drive', driveFileId: id }] });
    expectProblem(await t.as(c.owner).patch(`${CD}/tasks/${c.taskId}/messages/${sent.json().id}`, { text: 'mine now' }), 403, 'FORBIDDEN');
    // A message of another task is not found under this one.
    const other = await c.f.task(c.owner, c.stageIds[0]!);
    expectProblem(await t.as(c.reader).patch(`${CD}/tasks/${other.id}/messages/${sent.json().id}`, { text: 'moved?' }), 404, 'NOT_FOUND');
  });
});
