import { describe, expect, it } from 'vitest';
import { PASSWORD, useTestApp } from '../../test/app.js';
import { reglamentFactories } from '../reglaments/reglaments.fixtures.js';
import { changeLog } from './emitted.fixtures.js';

// The change log of spaces, organizations, labels, reglaments and documentation pages.
const t = useTestApp();
const f = reglamentFactories(t);
const newEvents = changeLog(t);

describe('events of spaces and their members', () => {
  it('announces space changes to the space, and leaves the caller’s own sidebar out', async () => {
    const owner = await t.org();
    const org = owner.organizationId;
    await newEvents(org);
    const as = t.as(owner);

    const space = await f.space(owner);
    await as.patch(`/spaces/${space.id}/name`, { name: 'Renamed' });
    await as.patch(`/spaces/${space.id}/favorite`, { favorite: true });
    await as.patch(`/spaces/${space.id}/order`, { order: 0 });
    await as.patch(`/spaces/${space.id}/archive`);
    await as.patch(`/spaces/${space.id}/restore`);
    await as.delete(`/spaces/${space.id}`);

    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual(['space.created', 'space.updated', 'space.archived', 'space.restored', 'space.deleted']);
    for (const e of events) expect(e).toMatchObject({ spaceId: space.id, projectId: null, taskId: null, actorId: owner.id });
    expect(events[0]!.payload).toEqual({ ...space, inviteLink: null });
    expect(events[1]!.payload).toMatchObject({ id: space.id, name: 'Renamed' });
    expect(events[2]!.payload).toMatchObject({ archived: true });
    expect(events[3]!.payload).toMatchObject({ archived: false });
    expect(events[4]!.payload).toEqual({ id: space.id });
  });

  it('announces members added, changed and removed, and organization member changes', async () => {
    const owner = await t.org();
    const org = owner.organizationId;
    const space = await f.space(owner);
    const user = await t.member(owner, 'member');
    await newEvents(org);
    const as = t.as(owner);

    const shared = (await as.post(`/spaces/${space.id}/members`, { userIds: [user.id], role: 'reader' })).json();
    await as.post(`/spaces/${space.id}/members`, { userIds: [user.id], role: 'reader' }); // already in: nothing new
    const changed = (await as.patch(`/spaces/${space.id}/members/${user.id}/role`, { role: 'editor' })).json();
    await as.delete(`/spaces/${space.id}/members/${user.id}`);
    const inSpace = await t.as(owner).post(`/spaces/${space.id}/members`, { userIds: [user.id], role: 'member' });
    expect(inSpace.statusCode).toBe(201);
    const member = (await as.patch(`/user/organization/members/${user.id}/role`, { role: 'admin' })).json();
    await as.delete(`/user/organization/members/${user.id}`);
    await as.patch('/user/organization/name', { name: 'Acme' });

    const events = await newEvents(org);
    expect(events.map((e) => [e.type, e.spaceId])).toEqual([
      ['space.member.added', space.id],
      ['space.member.updated', space.id],
      ['space.member.removed', space.id],
      ['space.member.added', space.id],
      ['organization.member.updated', null],
      ['organization.member.deleted', null],
      ['space.member.removed', space.id], // leaving the organization leaves its spaces
      ['organization.updated', null],
    ]);
    for (const e of events) expect(e.actorId).toBe(owner.id);
    expect(events[0]!.payload).toEqual(shared.members[0]);
    expect(events[1]!.payload).toEqual(changed);
    expect(events[2]!.payload).toEqual({ id: shared.members[0].id, userId: user.id });
    expect(events[4]!.payload).toEqual(member);
    expect(events[5]!.payload).toEqual({ id: member.id, userId: user.id });
    expect(events[7]!.payload).toMatchObject({ id: org, name: 'Acme' });
  });

  it('announces a profile change to every organization the user belongs to, with its Member form', async () => {
    const owner = await t.org();
    const user = await t.member(owner, 'member'); // also the owner of an organization of their own
    const own = (await t.as(user).get('/user/organizations')).json().find((o: { id: number }) => o.id !== owner.organizationId).id as number;
    await newEvents(owner.organizationId);
    await newEvents(own);

    expect((await t.as(user).patch('/user/name', { name: 'Renamed' })).statusCode).toBe(200);
    for (const org of [owner.organizationId, own]) {
      const events = await newEvents(org);
      expect(events).toMatchObject([{ type: 'organization.member.updated', actorId: user.id, spaceId: null, payload: { userId: user.id, name: 'Renamed' } }]);
    }
    const listed = (await t.as(owner).get('/user/organization')).json().members.find((m: { userId: number }) => m.userId === user.id);
    const [event] = await (async () => {
      await t.as(user).patch('/user/job-title', { jobTitle: 'Pilot' });
      return newEvents(owner.organizationId);
    })();
    expect(event!.payload).toEqual({ ...listed, jobTitle: 'Pilot' });

    // Once removed from an organization, it hears no more of them.
    await t.as(owner).delete(`/user/organization/members/${user.id}`);
    await newEvents(owner.organizationId);
    await newEvents(own);
    const login = (await t.as(null).post('/auth/login', { email: user.email, password: PASSWORD })).json();
    expect((await t.app.inject({ method: 'DELETE', url: '/user/avatar', headers: { 'service-session': login.session } })).statusCode).toBe(200);
    expect(await newEvents(owner.organizationId)).toEqual([]);
    expect((await newEvents(own)).map((e) => e.type)).toEqual(['organization.member.updated']);
  });

  it('announces organization labels', async () => {
    const owner = await t.org();
    const org = owner.organizationId;
    await newEvents(org);
    const label = (await t.as(owner).post('/labels', { name: 'Bug', color: '#ff0000' })).json();
    await t.as(owner).patch(`/labels/${label.id}`, { name: 'Defect' });
    await t.as(owner).delete(`/labels/${label.id}`);
    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual(['label.created', 'label.updated', 'label.deleted']);
    for (const e of events) expect(e).toMatchObject({ spaceId: null, projectId: null, taskId: null, actorId: owner.id });
    expect(events[0]!.payload).toEqual(label);
    expect(events[1]!.payload).toMatchObject({ id: label.id, name: 'Defect' });
    expect(events[2]!.payload).toEqual({ id: label.id });
  });
});

describe('events of reglaments', () => {
  it('announces the reglament’s life to its home space', async () => {
    const owner = await t.org();
    const org = owner.organizationId;
    const space = await f.space(owner);
    const group = await f.group(owner, space.id);
    await newEvents(org);
    const as = t.as(owner);

    const reglament = await f.reglament(owner, group.id, { draft: true });
    await as.patch(`/reglaments/${reglament.id}/name`, { name: 'Rules' });
    await as.patch(`/reglaments/${reglament.id}/publish`);
    await as.patch(`/reglaments/${reglament.id}/publish`); // already published: nothing
    await as.patch(`/reglaments/${reglament.id}/favorite`, { favorite: true }); // the caller's own
    const version = (await as.post(`/reglaments/${reglament.id}/versions`, { name: 'v1' })).json();
    const passed = (await as.post(`/reglaments/${reglament.id}/passed-users`)).json();
    await as.delete(`/reglaments/${reglament.id}`);

    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual([
      'reglament.created',
      'reglament.updated',
      'reglament.published', // publishing again changed nothing
      'reglament.version.created',
      'reglament.passed',
      'reglament.deleted',
    ]);
    for (const e of events) expect(e).toMatchObject({ spaceId: space.id, projectId: null, taskId: null, actorId: owner.id });
    expect(events[0]!.payload).toEqual(reglament);
    expect(events[1]!.payload).toMatchObject({ id: reglament.id, name: 'Rules', draft: true });
    expect(events[2]!.payload).toMatchObject({ id: reglament.id, draft: false });
    expect(events[3]!.payload).toEqual(version);
    expect(events[4]!.payload).toEqual(passed);
    expect(events[5]!.payload).toEqual({ id: reglament.id });
  });

  it('announces a space whose intro reglament goes away, by deletion or by leaving the space', async () => {
    const owner = await t.org();
    const org = owner.organizationId;
    const as = t.as(owner);
    const [home, second] = [await f.space(owner, 'Home'), await f.space(owner, 'Second')];
    const group = await f.group(owner, home.id);
    await f.group(owner, second.id, 'Main');
    const reglament = await f.reglament(owner, group.id, { name: 'Welcome' });
    expect((await as.post(`/reglaments/${reglament.id}/spaces`, { spaceId: second.id })).statusCode).toBe(201);
    for (const space of [home, second]) {
      expect((await as.patch(`/spaces/${space.id}/intro-reglament`, { reglamentId: reglament.id })).statusCode).toBe(200);
    }
    await newEvents(org);
    expect((await as.delete(`/reglaments/${reglament.id}/spaces/${second.id}`)).statusCode).toBe(204);
    const left = await newEvents(org);
    expect(left.map((e) => [e.type, e.spaceId])).toEqual([['space.updated', second.id], ['reglament.updated', home.id]]);
    expect(left[0]!.payload).toMatchObject({ id: second.id, introReglamentId: null });
    expect((await as.delete(`/reglaments/${reglament.id}`)).statusCode).toBe(204);
    const gone = await newEvents(org);
    expect(gone.map((e) => [e.type, e.spaceId])).toEqual([['space.updated', home.id], ['reglament.deleted', home.id]]);
    expect(gone[0]!.payload).toMatchObject({ id: home.id, introReglamentId: null });
  });

  it('announces test questions without ever telling which answers are right', async () => {
    const { owner, space, reglament } = await f.world();
    const org = owner.organizationId;
    await newEvents(org);
    const as = t.as(owner);

    const question = await f.question(owner, reglament.id, 'Helmet?');
    const answer = await f.answer(owner, reglament.id, question.id, 'Yes', true);
    await as.patch(`/reglaments/${reglament.id}/questions/${question.id}/name`, { name: 'Helmet on?' });
    await as.delete(`/reglaments/${reglament.id}/questions/${question.id}`);

    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual([
      'reglament.question.created',
      'reglament.question.updated', // its answer was added
      'reglament.question.updated',
      'reglament.question.deleted',
    ]);
    for (const e of events) expect(e).toMatchObject({ spaceId: space.id, actorId: owner.id });
    expect(events[0]!.payload).toMatchObject({ id: question.id, reglamentId: reglament.id, answers: [] });
    expect(events[1]!.payload.answers).toEqual([{ id: answer.id, name: 'Yes', questionId: question.id, isRight: null }]);
    expect(events[2]!.payload).toMatchObject({ name: 'Helmet on?', answers: [{ id: answer.id, isRight: null }] });
    expect(events[3]!.payload).toEqual({ id: question.id, reglamentId: reglament.id });
    expect(JSON.stringify(events.map((e) => e.payload))).not.toContain('"isRight":true');
  });
});

describe('events of documentation pages', () => {
  it('announces pages to their space; the caller’s collapsed flag stays out', async () => {
    const owner = await t.org();
    const org = owner.organizationId;
    const space = await f.space(owner);
    const as = t.as(owner);
    const group = (await as.post(`/spaces/${space.id}/documentation-groups`, { name: 'Guides' })).json();
    const [groupEvent] = await newEvents(org).then((all) => all.slice(-1));
    expect(groupEvent).toMatchObject({ type: 'space.updated', spaceId: space.id, payload: { documentationGroups: [{ id: group.id, name: 'Guides' }] } });

    const page = (await as.post('/pages', { spaceId: space.id, documentationGroupId: group.id, name: 'Intro', content: 'hi' })).json();
    await as.patch(`/pages/${page.id}/content`, { content: 'hello' });
    await as.patch(`/pages/${page.id}/name`, { name: 'Start' });
    await as.patch(`/pages/${page.id}/collapsed`, { collapsed: true });
    await as.patch(`/pages/${page.id}/order`, { order: 0 });
    await as.patch(`/pages/${page.id}/public`, { public: true });
    await as.patch(`/pages/${page.id}/public`, { public: false });
    await as.patch(`/pages/${page.id}/archive`);
    await as.patch(`/pages/${page.id}/restore`);
    const copy = (await as.post(`/pages/${page.id}/duplicate`, {})).json();
    await as.delete(`/pages/${page.id}`);

    const events = await newEvents(org);
    expect(events.map((e) => e.type)).toEqual([
      'page.created',
      'page.updated',
      'page.updated',
      'page.moved',
      'page.published',
      'page.unpublished',
      'page.archived',
      'page.restored',
      'page.created',
      'page.deleted',
    ]);
    for (const e of events) expect(e).toMatchObject({ spaceId: space.id, projectId: null, taskId: null, actorId: owner.id });
    expect(events[0]!.payload).toEqual(page);
    expect(events[1]!.payload).toMatchObject({ id: page.id, content: 'hello', version: 2 });
    expect(events[2]!.payload).toMatchObject({ id: page.id, name: 'Start' });
    expect(events[4]!.payload.publicUrl).toEqual(expect.any(String));
    expect(events[5]!.payload).toMatchObject({ public: false, publicUrl: null });
    expect(events[6]!.payload).toMatchObject({ archived: true });
    expect(events[8]!.payload).toEqual(copy);
    expect(events[9]!.payload).toEqual({ id: page.id });
  });
});
