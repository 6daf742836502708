import { Type } from 'typebox';
import { Id, Nullable } from '../../../platform/schemas.js';

export const IntroBody = Type.Object({
  reglamentId: Nullable(Id('a published reglament shown in the space; null resets')),
});
