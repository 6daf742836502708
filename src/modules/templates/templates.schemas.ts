import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, Nullable } from '../../platform/schemas.js';
import { Offset } from '../../platform/http.js';

// routes.md "Projects" 43-45 and the Template resource. A template holds columns, tabs and, with
// withTasks, tasks without dates or people; the columns are shown, the rest is applied by
// POST /projects {templateId}.

export const TemplateSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    sourceProjectId: Nullable(Type.Integer({ description: 'the project it was made from; null once that project is purged' })),
    withTasks: Type.Boolean(),
    stages: Type.Array(Type.Object({ name: Type.String(), color: Type.String(), tasksLimit: Type.Integer() }), { description: 'the columns, in order' }),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Template' },
);
export type TemplateDto = Static<typeof TemplateSchema>;

export const TemplateParams = Type.Object({ templateId: Id('template id') });

export const ListTemplatesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
  offset: Offset(),
});

export const CreateTemplateBody = Type.Object({
  projectId: Id('the project to take columns, tabs and tasks from'),
  name: Name(),
  withTasks: Type.Optional(Type.Boolean({ default: false, description: 'keep the tasks too (not archived; without dates or people)' })),
});
export type CreateTemplateInput = Static<typeof CreateTemplateBody>;
