import { describe, expect, it } from 'vitest';
import { filterOf, paramsOf, taskPath } from './model';

describe('search', () => {
  it('keeps its filter in the address and reads it back', () => {
    const filter = { q: 'quarterly "sales report"', spaceId: 4, archived: true };
    expect(filterOf(new URLSearchParams(paramsOf(filter)))).toEqual(filter);
    expect(filterOf(new URLSearchParams('q=+plan+&space=x'))).toEqual({ q: 'plan', spaceId: null, archived: false });
    expect(paramsOf({ q: 'plan', spaceId: null, archived: false })).toEqual({ q: 'plan' });
  });

  it('opens a task on its home board, else on the first board that holds it', () => {
    const stage = (projectId: number, pinned: boolean) => ({ stageId: projectId * 10, order: '0', pinned, projectId });
    expect(taskPath({ id: 7, stages: [stage(3, false), stage(5, true)] })).toBe('/projects/5/tasks/7');
    expect(taskPath({ id: 7, stages: [stage(3, false)] })).toBe('/projects/3/tasks/7');
    expect(taskPath({ id: 7, stages: [] })).toBeNull();
  });
});
