import { Type, type Static } from 'typebox';
import { TabSchema } from './tabs/tabs.schemas.js';
import { DateTime, Id, Name, Nullable } from '../../platform/schemas.js';
import { StageSchema } from '../stages/stages.schemas.js';
import { Offset } from '../../platform/http.js';

export const TimelineScale = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month'), Type.Literal('quarter')], {
  description: 'the timeline zoom: day, week, month or quarter',
});
export const TimelineGrouping = Type.Union([Type.Literal('none'), Type.Literal('stage'), Type.Literal('assignee'), Type.Literal('label')], {
  description: 'the timeline swimlanes: none, stage (column), assignee or label',
});

export const ProjectSchema = Type.Object(
  {
    id: Type.Integer(),
    spaceId: Type.Integer({ description: 'home space' }),
    linkedSpaceIds: Type.Array(Type.Integer(), { description: 'other spaces the project is shown in' }),
    projectGroupId: Nullable(Type.Integer({ description: 'group in the home space; in a space listing, the group in that space' })),
    name: Type.String(),
    description: Nullable(Type.String()),
    order: Type.String({ description: 'position in its group (numeric string); in a space listing, the position in that space' }),
    showDocumentationTab: Type.Boolean(),
    showTimelineTab: Type.Boolean(),
    showCalendarTab: Type.Boolean(),
    deletedAt: Nullable(DateTime('set while the project is in the trash (purged after 30 days)')),
    creatorId: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    favorite: Type.Boolean({ description: "the caller's flag" }),
    viewSettings: Type.Object(
      { timelineScale: TimelineScale, timelineGrouping: TimelineGrouping },
      { description: "the caller's timeline zoom and swimlanes" },
    ),
  },
  { $id: 'Project' },
);
export type ProjectDto = Static<typeof ProjectSchema>;

export const ProjectFullSchema = Type.Object(
  {
    ...ProjectSchema.properties,
    stages: Type.Array(StageSchema),
    tabs: Type.Array(TabSchema, { description: 'the custom tabs, in order' }),
  },
  { $id: 'ProjectFull' },
);
export type ProjectFullDto = Static<typeof ProjectFullSchema>;

export const ProjectList = Type.Array(ProjectSchema);

export const ProjectParams = Type.Object({ projectId: Id() });
export const SpaceParams = Type.Object({ spaceId: Id() });

const Description = Nullable(Type.String({ maxLength: 1_048_576, description: 'plain or rich text; null clears it' }));

export const CreateProjectBody = Type.Object({
  spaceId: Id(),
  name: Name(),
  projectGroupId: Type.Optional(Nullable(Id())),
  templateId: Type.Optional(Id('a template of the organization: its columns, tabs and tasks fill the new project')),
  description: Type.Optional(Description),
});

const paging = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
  offset: Offset(),
};

export const ListProjectsQuery = Type.Object({
  favorite: Type.Optional(Type.Boolean({ description: "only the caller's favourites (true) or only the others (false)" })),
  deleted: Type.Optional(Type.Boolean({ default: false, description: 'the trash: deleted projects, restorable for 30 days' })),
  ...paging,
});
export type ListProjectsQueryDto = Static<typeof ListProjectsQuery>;

export const SpaceProjectsQuery = Type.Object(paging);

export const NameBody = Type.Object({ name: Name() });
export const DescriptionBody = Type.Object({ description: Description });
export const FavoriteBody = Type.Object({ favorite: Type.Boolean({ description: "the caller's favourite flag" }) });
export const TimelineScaleBody = Type.Object({ timelineScale: TimelineScale });
export const TimelineGroupingBody = Type.Object({ timelineGrouping: TimelineGrouping });
export const ShowDocumentationTabBody = Type.Object({ showDocumentationTab: Type.Boolean() });
export const ShowTimelineTabBody = Type.Object({ showTimelineTab: Type.Boolean() });
export const ShowCalendarTabBody = Type.Object({ showCalendarTab: Type.Boolean() });
