import { describe, expect, it } from 'vitest';
import { canManageMember, choiceOf, eventsOf, expiresAtFor, inviteUrl, webhookChanges } from './model';

describe('members', () => {
  const member = (userId: number, role: 'owner' | 'admin' | 'member', deleted = false) => ({ userId, role, deleted });
  it('shows administrators the controls for everyone but the owner and themselves', () => {
    expect(canManageMember('admin', 1, member(2, 'member'))).toBe(true);
    expect(canManageMember('owner', 1, member(2, 'admin'))).toBe(true);
    expect(canManageMember('admin', 1, member(3, 'owner'))).toBe(false);
    expect(canManageMember('admin', 1, member(1, 'admin'))).toBe(false);
    expect(canManageMember('admin', 1, member(2, 'member', true))).toBe(false);
    expect(canManageMember('member', 1, member(2, 'member'))).toBe(false);
    expect(canManageMember(undefined, 1, member(2, 'member'))).toBe(false);
  });
});

describe('webhook events', () => {
  it('shows families as ticked boxes and the rest as typed text', () => {
    expect(choiceOf(['task.*', 'message.created', 'automation.*'])).toEqual({ all: false, families: ['task'], other: 'message.created, automation.*' });
    expect(choiceOf(['*'])).toEqual({ all: true, families: [], other: '' });
  });

  it('sends ticked families and typed types once each, and refuses what is not an event type', () => {
    expect(eventsOf({ all: false, families: ['task', 'stage'], other: 'message.created,  task.* ' })).toEqual({ events: ['task.*', 'stage.*', 'message.created'] });
    expect(eventsOf({ all: true, families: ['task'], other: 'whatever' })).toEqual({ events: ['*'] });
    expect(eventsOf({ all: false, families: [], other: '' })).toEqual({ error: 'choose at least one event' });
    expect(eventsOf({ all: false, families: [], other: 'Task Created' })).toEqual({ error: '"Task" is not an event type (task.created) or family (task.*)' });
    expect(eventsOf({ all: false, families: [], other: 'task.*.x' })).toHaveProperty('error');
  });

  it('round-trips a webhook’s events through the form', () => {
    const events = ['task.*', 'label.*', 'message.created'];
    const back = eventsOf(choiceOf(events));
    expect('events' in back && [...back.events].sort()).toEqual([...events].sort());
  });

  it('patches only what an edit changed; the order of events does not count', () => {
    const before = { url: 'https://a.example/h', events: ['task.*', 'stage.*'] };
    expect(webhookChanges(before, { url: before.url, events: ['stage.*', 'task.*'] })).toEqual({});
    expect(webhookChanges(before, { url: 'https://b.example/h', events: ['task.*'] })).toEqual({ url: 'https://b.example/h', events: ['task.*'] });
  });
});

describe('tokens and invite links', () => {
  it('sets an expiry some days ahead, or none', () => {
    expect(expiresAtFor(30, Date.parse('2026-01-01T00:00:00Z'))).toBe('2026-01-31T00:00:00.000Z');
    expect(expiresAtFor(null)).toBeNull();
  });

  it('links to the client’s accept page', () => {
    expect(inviteUrl('https://work.example', 'abc_12-x')).toBe('https://work.example/app/invite/abc_12-x');
  });
});
