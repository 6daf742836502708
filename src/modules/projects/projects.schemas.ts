import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, Nullable } from '../../platform/schemas.js';
import { StageSchema } from '../stages/stages.schemas.js';

export const ProjectSchema = Type.Object(
  {
    id: Type.Integer(),
    spaceId: Type.Integer({ description: 'home space' }),
    linkedSpaceIds: Type.Array(Type.Integer(), { description: 'other spaces the project is shown in' }),
    projectGroupId: Nullable(Type.Integer()),
    name: Type.String(),
    description: Nullable(Type.String()),
    order: Type.String(),
    showDocumentationTab: Type.Boolean(),
    showTimelineTab: Type.Boolean(),
    showCalendarTab: Type.Boolean(),
    deletedAt: Nullable(DateTime()),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    favorite: Type.Boolean({ description: "the caller's flag" }),
    viewSettings: Type.Object({
      timelineScale: Type.String(),
      timelineGrouping: Type.String(),
    }),
  },
  { $id: 'Project' },
);
export type ProjectDto = Static<typeof ProjectSchema>;

export const ProjectFullSchema = Type.Object(
  {
    ...ProjectSchema.properties,
    stages: Type.Array(StageSchema),
    tabs: Type.Array(Type.Object({ id: Type.Integer(), type: Type.String(), name: Type.String(), order: Type.String() })),
  },
  { $id: 'ProjectFull' },
);
export type ProjectFullDto = Static<typeof ProjectFullSchema>;

export const ProjectParams = Type.Object({ projectId: Id() });

export const CreateProjectBody = Type.Object({
  spaceId: Id(),
  name: Name(),
  projectGroupId: Type.Optional(Nullable(Id())),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1_048_576 }))),
});
