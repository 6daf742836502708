import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import tar from 'tar-stream';

// Test-only: take an archive apart and put it together again, to make the damaged ones an import must refuse.

export interface Entry {
  name: string;
  data: Buffer;
}

export async function unpack(archive: Buffer): Promise<Entry[]> {
  const extract = tar.extract();
  const entries: Entry[] = [];
  Readable.from([gunzipSync(archive)]).pipe(extract as never);
  for await (const entry of extract as AsyncIterable<tar.Entry & AsyncIterable<Buffer>>) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk);
    entries.push({ name: entry.header.name, data: Buffer.concat(chunks) });
  }
  return entries;
}

/** A .tar.gz of the entries as given (names unchecked, so hostile ones can be made). */
export async function pack(entries: Entry[]): Promise<Buffer> {
  const p = tar.pack();
  const out: Promise<Buffer> = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of p as AsyncIterable<Buffer>) chunks.push(chunk);
    return gzipSync(Buffer.concat(chunks));
  })();
  for (const e of entries) await new Promise<void>((resolve, reject) => p.entry({ name: e.name, size: e.data.length }, e.data, (err) => (err ? reject(err) : resolve())));
  p.finalize();
  return out;
}

/** The manifest made true again for the entries as they now are (a consistent forgery). */
export function resign(entries: Entry[]): Entry[] {
  const manifest = JSON.parse(entries.find((e) => e.name === 'manifest.json')!.data.toString()) as { entries: Record<string, { bytes: number; sha256: string }> };
  manifest.entries = {};
  for (const e of entries) if (e.name !== 'manifest.json') manifest.entries[e.name] = { bytes: e.data.length, sha256: createHash('sha256').update(e.data).digest('hex') };
  return entries.map((e) => (e.name === 'manifest.json' ? { name: e.name, data: Buffer.from(JSON.stringify(manifest)) } : e));
}

/** Changes the first entry whose name matches, keeping the rest. */
export function edit(entries: Entry[], match: RegExp, change: (data: Buffer) => Buffer): Entry[] {
  let done = false;
  return entries.map((e) => {
    if (done || !match.test(e.name)) return e;
    done = true;
    return { name: e.name, data: change(e.data) };
  });
}
