import { Type, type Static } from 'typebox';
import { DateTime, FileSchema, Id, Nullable } from '../../platform/schemas.js';

export const ProjectDocumentationSchema = Type.Object(
  {
    projectId: Type.Integer(),
    content: Type.String({ description: 'HTML or Markdown as stored; empty until first written' }),
    images: Type.Array(FileSchema, { description: 'images uploaded for the content, oldest first' }),
    files: Type.Array(FileSchema, { description: 'attached files, oldest first' }),
    version: Type.Integer({ description: 'content version, 0 until first written; also the ETag' }),
    updatedById: Nullable(Type.Integer()),
    updatedAt: Nullable(DateTime('time of the last content write; null until first written')),
  },
  { $id: 'ProjectDocumentation' },
);
export type ProjectDocumentationDto = Static<typeof ProjectDocumentationSchema>;

export const ProjectParams = Type.Object({ projectId: Id() });
export const ImageParams = Type.Object({ projectId: Id(), fileId: Id() });

export const ContentBody = Type.Object({
  content: Type.String({ maxLength: 1_048_576, description: 'HTML or Markdown, stored as sent; at most 1 MiB (UTF-8 bytes)' }),
});
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({ maxLength: 200, description: 'the ETag last read; a stale one answers 409 STALE_VERSION' })),
});
