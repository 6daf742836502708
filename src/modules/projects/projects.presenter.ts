import { iso } from '../../platform/http.js';
import type { ProjectDto } from './projects.schemas.js';

/** A project row with the caller's settings and linked spaces, as queryProjects returns it. */
export interface ProjectRecord {
  id: number;
  spaceId: number;
  linkedSpaceIds: number[] | null;
  projectGroupId: number | null;
  name: string;
  description: string | null;
  order: number;
  showDocumentationTab: boolean;
  showTimelineTab: boolean;
  showCalendarTab: boolean;
  deletedAt: Date | string | null;
  creatorId: number | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  favorite: boolean | null;
  // Only the routes' enumerated values are ever stored.
  timelineScale: ProjectDto['viewSettings']['timelineScale'] | null;
  timelineGrouping: ProjectDto['viewSettings']['timelineGrouping'] | null;
}

export function presentProject(r: ProjectRecord): ProjectDto {
  return {
    id: Number(r.id),
    spaceId: Number(r.spaceId),
    linkedSpaceIds: (r.linkedSpaceIds ?? []).map(Number),
    projectGroupId: r.projectGroupId === null ? null : Number(r.projectGroupId),
    name: r.name,
    description: r.description,
    order: String(r.order),
    showDocumentationTab: r.showDocumentationTab,
    showTimelineTab: r.showTimelineTab,
    showCalendarTab: r.showCalendarTab,
    deletedAt: iso(r.deletedAt),
    creatorId: r.creatorId === null ? null : Number(r.creatorId),
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    favorite: Boolean(r.favorite),
    viewSettings: { timelineScale: r.timelineScale ?? 'week', timelineGrouping: r.timelineGrouping ?? 'none' },
  };
}
