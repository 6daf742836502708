import * as z from 'zod';
import { STATUS } from '../mcp.presenter.js';

// Input pieces shared by the tools. Every string is bounded: a huge argument is refused by the
// schema as a tool error before any service runs.

export const Ref = (what: string) =>
  z.union([z.number().int().positive(), z.string().trim().min(1).max(200)]).describe(`${what}: its id, or its name as the user says it`);
export const Id = (what: string) => z.number().int().positive().describe(what);
export const Status = z.enum(STATUS);
export const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/).describe('a date (YYYY-MM-DD) or an ISO 8601 instant');
export const Limit = (max: number, dflt: number) => z.number().int().min(1).max(max).default(dflt).describe(`page size (default ${dflt}, max ${max})`);
export const Offset = z.number().int().min(0).max(100_000).default(0).describe('items to skip');
export const Text = (max: number, what: string) => z.string().max(max).describe(what);

export const statusCodes = (words: readonly (typeof STATUS)[number][] | undefined): string | undefined =>
  words?.length ? [...new Set(words.map((w) => STATUS.indexOf(w)))].join(',') : undefined;
