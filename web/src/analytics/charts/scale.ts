/** The smallest of 1, 2, 5 × 10^k at or above `value` (1 for nothing to show, so an empty chart still has an axis). */
export function niceCeil(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const m = value / power;
  const step = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
  return step * power;
}

/** Axis ticks from 0 past `max` in about `count` nice steps; counts step by whole numbers. */
export function axis(max: number, count = 4, whole = true): { top: number; ticks: number[] } {
  let step = niceCeil(max / count);
  if (whole) step = Math.max(1, Math.round(step));
  const ticks = [0];
  while (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  if (ticks.length === 1) ticks.push(step);
  return { top: ticks[ticks.length - 1]!, ticks };
}

/** Stacked bands: for each series (bottom first), its [lower, upper] at each point. */
export function stack(series: readonly (readonly number[])[]): Array<Array<[number, number]>> {
  const base = new Array<number>(series[0]?.length ?? 0).fill(0);
  return series.map((values) =>
    values.map((v, i) => {
      const lower = base[i]!;
      base[i] = lower + v;
      return [lower, lower + v] as [number, number];
    }),
  );
}

export const totals = (series: readonly (readonly number[])[]) => (series[0] ?? []).map((_, i) => series.reduce((sum, s) => sum + (s[i] ?? 0), 0));

const num = (n: number) => Number(n.toFixed(2));

export function linePath(values: readonly number[], x: (i: number) => number, y: (v: number) => number): string {
  return values.map((v, i) => `${i === 0 ? 'M' : 'L'}${num(x(i))} ${num(y(v))}`).join(' ');
}

/** A closed band: along the upper edge, back along the lower one. */
export function bandPath(band: ReadonlyArray<readonly [number, number]>, x: (i: number) => number, y: (v: number) => number): string {
  const upper = band.map(([, hi], i) => `${i === 0 ? 'M' : 'L'}${num(x(i))} ${num(y(hi))}`);
  const lower = band.map(([lo], i) => `L${num(x(i))} ${num(y(lo))}`).reverse();
  return `${[...upper, ...lower].join(' ')} Z`;
}

/** Colours that keep 3:1 against white and apart from each other (series, columns). */
export const PALETTE = ['#1d4ed8', '#15803d', '#b91c1c', '#7c3aed', '#c2410c', '#0e7490', '#a21caf', '#4d7c0f', '#475569', '#b45309'];
export const colourOf = (i: number) => PALETTE[i % PALETTE.length]!;
