import { describe, expect, it } from 'vitest';
import { axis, bandPath, linePath, niceCeil, stack, totals } from './scale';

describe('chart scales', () => {
  it('rounds up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 0.3, 1, 1.2, 3, 7, 12, 480, 501].map(niceCeil)).toEqual([1, 0.5, 1, 2, 5, 10, 20, 500, 1000]);
  });

  it('makes whole-number ticks from 0 past the largest value', () => {
    expect(axis(7)).toEqual({ top: 8, ticks: [0, 2, 4, 6, 8] });
    expect(axis(3)).toEqual({ top: 3, ticks: [0, 1, 2, 3] });
    expect(axis(0)).toEqual({ top: 1, ticks: [0, 1] });
    expect(axis(1.5, 4, false)).toEqual({ top: 1.5, ticks: [0, 0.5, 1, 1.5] });
  });

  it('stacks series bottom first', () => {
    expect(stack([[1, 2], [3, 0], [1, 1]])).toEqual([
      [[0, 1], [0, 2]],
      [[1, 4], [2, 2]],
      [[4, 5], [2, 3]],
    ]);
    expect(totals([[1, 2], [3, 0]])).toEqual([4, 2]);
    expect(stack([])).toEqual([]);
  });

  it('draws lines and closed bands', () => {
    const x = (i: number) => i * 10;
    const y = (v: number) => 100 - v;
    expect(linePath([0, 5], x, y)).toBe('M0 100 L10 95');
    expect(bandPath([[0, 2], [1, 3]], x, y)).toBe('M0 98 L10 97 L10 99 L0 100 Z');
  });
});
