import { Type, type Static } from 'typebox';
import { Id, Nullable } from '../../../platform/schemas.js';

// routes.md "Inspectors": the spec's `inspetor` segment is kept for the whole family.

/** `inspectorId` is the inspector's user id, as the add operation's body names it. */
export const InspectorParams = Type.Object({ taskId: Id('task id'), inspectorId: Id("the inspector's user id") });

export const InspectorStatusBody = Type.Object({
  status: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)], { description: '0 waiting, 1 approved, 2 rejected' }),
  comment: Type.Optional(Nullable(Type.String({ maxLength: 10_000, description: 'why; left out keeps the current comment, null clears it' }))),
});
export type InspectorStatusInput = Static<typeof InspectorStatusBody>;
