import { describe, expect, it } from 'vitest';
import { labelColor, mapTrelloBoard } from './trello.map.js';
import type { TrelloBoard } from './imports.schemas.js';

const board = (extra: Partial<TrelloBoard> = {}): TrelloBoard => ({
  name: 'B',
  lists: [
    { id: 'l2', name: 'Later', pos: 2 },
    { id: 'l1', name: 'First', pos: 1 },
  ],
  cards: [],
  ...extra,
});

describe('mapTrelloBoard (pure)', () => {
  it('orders lists and cards by position, the export order breaking ties', () => {
    const plan = mapTrelloBoard(
      board({
        cards: [
          { id: 'c', idList: 'l1', name: 'C', pos: 5 },
          { id: 'a', idList: 'l1', name: 'A', pos: 1 },
          { id: 'b', idList: 'l1', name: 'B', pos: 1 },
          { id: 'x', idList: 'l2', name: 'X' },
        ],
      }),
    );
    expect(plan.columns).toEqual(['First', 'Later']);
    expect(plan.tasks.map((t) => [t.column, t.name])).toEqual([[1, 'X'], [0, 'A'], [0, 'B'], [0, 'C']]);
  });

  it('names, shortens and drops what it cannot keep, and says so once per reason', () => {
    const plan = mapTrelloBoard(
      board({
        cards: [
          { id: 'a', idList: 'l1', name: '  ', due: 'not a date', start: '2025-02-01T00:00:00Z' },
          { id: 'b', idList: 'gone', name: 'Orphan' },
          { id: 'c', idList: 'l1', name: 'x'.repeat(600), start: '2025-03-01T00:00:00Z', due: '2025-02-01T00:00:00Z' },
        ],
        labels: [
          { id: 'n', name: null, color: null },
          { id: 'g', name: 'Bug', color: 'green_dark' },
          { id: 'g2', name: 'bug', color: 'red' },
        ],
      }),
    );
    expect(plan.tasks.map((t) => [t.name.length, t.dateBegin, t.dateEnd])).toEqual([
      [10, '2025-02-01T00:00:00.000Z', null],
      [500, null, '2025-02-01T00:00:00.000Z'],
    ]);
    expect(plan.labels).toEqual([{ name: 'Bug', color: '#61bd4f' }]);
    expect(plan.report.skipped).toEqual([
      { reason: 'labels without a name or colour were left out', count: 1 },
      { reason: 'card without a name was named "(untitled)"', count: 1 },
      { reason: 'cards whose list is not in the export were left out', count: 1 },
      { reason: 'start dates after their due date were left out', count: 1 },
      { reason: 'card names longer than 500 characters were shortened', count: 1 },
    ]);
  });

  it('maps Trello colour names and shades to its palette, anything else to grey', () => {
    expect([labelColor('sky'), labelColor('pink_light'), labelColor('black_dark'), labelColor(null), labelColor('chartreuse')]).toEqual([
      '#00c2e0', '#ff78cb', '#344563', '#b3bac5', '#b3bac5',
    ]);
  });
});
