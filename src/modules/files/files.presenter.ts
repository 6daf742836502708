import type { FileRow } from './files.service.js';

export const fileLink = (key: string) => `/files/${key}`;

/** The spec's File {id, link} plus name, size and type. */
export function presentFile(row: FileRow) {
  return { id: row.id, link: fileLink(row.key), name: row.name, size: row.size, mimeType: row.mimeType };
}
