import { describe, expect, it } from 'vitest';
import { badgeText, notificationTarget } from './model';

describe('notifications', () => {
  it('open the task they are about on its board, a disabled webhook on the webhooks page', () => {
    expect(notificationTarget({ type: 'task.assigned', taskId: 5, projectId: 2 })).toBe('/projects/2/tasks/5');
    expect(notificationTarget({ type: 'webhook.disabled', taskId: null, projectId: null })).toBe('/settings/webhooks');
    expect(notificationTarget({ type: 'reglament.mandatory', taskId: null, projectId: null })).toBeNull();
  });

  it('cap the badge at 99+', () => {
    expect(badgeText(7)).toBe('7');
    expect(badgeText(99)).toBe('99');
    expect(badgeText(100)).toBe('99+');
  });
});
