import { readdir } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { Method, TestKit, TestUser } from '../../test/app.js';

// Test fixtures for upload routes (used by several modules' tests; no production code imports this).

/** A valid 1×1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

export interface Part {
  name: string;
  data: Buffer | string;
  filename?: string;
  contentType?: string;
}

/** A multipart/form-data body built by hand, with its content-type header. */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----workboard-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const type = part.filename === undefined ? '' : `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Sends one file in the multipart field `field` (default `file`). */
export function sendFile(
  kit: TestKit,
  user: TestUser | null,
  method: Method,
  url: string,
  file: { data: Buffer | string; filename?: string; contentType?: string; field?: string },
): Promise<LightMyRequestResponse> {
  const body = multipart([{ name: file.field ?? 'file', data: file.data, filename: file.filename ?? 'image.png', contentType: file.contentType ?? 'image/png' }]);
  return kit.as(user).request(method, url, body.payload, body.headers);
}

/** How many blobs the app's file store holds (to prove a refused upload left nothing behind). */
export async function blobCount(kit: TestKit): Promise<number> {
  if (kit.app.files.backend.kind === 's3') {
    let n = 0;
    for await (const _ of kit.app.files.backend.list()) n++;
    return n;
  }
  // Every file of the directory, half-written `.part` files included.
  const entries = await readdir(kit.config.filesDir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).length;
}

/** The storage key in a file link (`/files/<key>`). */
export const keyOf = (link: string): string => link.split('/').pop()!;
