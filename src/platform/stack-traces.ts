import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Stack traces of the compiled build that name src/*.ts lines, at no memory cost until an error's
 * stack is read. Node's own source-map support (`--enable-source-maps`) parses the map of every
 * module as it loads: 17 MB of the server's heap held for the rare stack trace (issue 42). Here a
 * frame in dist/ is mapped when a stack is formatted, reading that one file's map then, and only a
 * few maps are kept. An operator who prefers Node's support can still pass the flag: then this stays
 * out of the way.
 */
const KEPT = 32;
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  const known = maps.get(file);
  if (known !== undefined) {
    // Most recently used last, so the oldest goes first below.
    maps.delete(file);
    maps.set(file, known);
    return known;
  }
  let map: SourceMap | null = null;
  try {
    map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    // No map beside it (a dependency's file, or a build without maps): the frame stays as it is.
  }
  maps.set(file, map);
  if (maps.size > KEPT) maps.delete(maps.keys().next().value!);
  return map;
}

/** `file:line:column` of the source a compiled position came from, or null when there is no map for it. */
export function originalPosition(file: string, line: number, column: number): string | null {
  const map = mapOf(file);
  if (!map) return null;
  const entry = map.findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
  if (!entry.originalSource || entry.originalLine === undefined) return null;
  const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : path.resolve(path.dirname(file), entry.originalSource);
  return `${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
}

const FRAME = /(file:\/\/[^\s()]+|\/[^\s()]+):(\d+):(\d+)/;

function frame(site: NodeJS.CallSite, under: string): string {
  const text = String(site);
  const match = FRAME.exec(text);
  if (!match) return text;
  const file = match[1]!.startsWith('file:') ? fileURLToPath(match[1]!) : match[1]!;
  if (!file.startsWith(under)) return text;
  const original = originalPosition(file, Number(match[2]), Number(match[3]));
  return original ? text.replace(match[0], original) : text;
}

/**
 * Formats stacks as V8 does (the error's own line, then one "    at …" per frame), with frames in
 * `dir` (the compiled build) mapped to their sources. Nothing is installed when Node maps them itself.
 */
export function mapCompiledStackTraces(dir: string): void {
  if (process.sourceMapsEnabled) return;
  const under = dir.endsWith(path.sep) ? dir : dir + path.sep;
  Error.prepareStackTrace = (error: unknown, sites: NodeJS.CallSite[]) => {
    let head: string;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return head + sites.map((site) => `\n    at ${frame(site, under)}`).join('');
  };
}
