import { iso } from '../../platform/http.js';
import { fileLink } from '../files/files.presenter.js';
import type { FileRow } from '../files/files.service.js';
import type { ProjectDocumentationDto } from './project-docs.schemas.js';

export interface DocumentationRecord {
  content: string;
  version: number;
  updatedById: number | null;
  updatedAt: Date | string;
}

type AttachedFile = Pick<FileRow, 'id' | 'key' | 'name' | 'size' | 'mimeType'> & { kind: 'image' | 'file' };

/** A project without a documentation row yet reads as empty, version 0. */
export function presentProjectDocumentation(projectId: number, doc: DocumentationRecord | undefined, attached: AttachedFile[]): ProjectDocumentationDto {
  const file = (f: AttachedFile) => ({ id: Number(f.id), link: fileLink(f.key), name: f.name, size: Number(f.size), mimeType: f.mimeType });
  return {
    projectId,
    content: doc?.content ?? '',
    images: attached.filter((f) => f.kind === 'image').map(file),
    files: attached.filter((f) => f.kind === 'file').map(file),
    version: Number(doc?.version ?? 0),
    updatedById: doc?.updatedById == null ? null : Number(doc.updatedById),
    updatedAt: doc && Number(doc.version) > 0 ? iso(doc.updatedAt) : null,
  };
}
