import { Type } from 'typebox';
import { Color, Name } from '../../../platform/schemas.js';
import { Background, Icon } from '../spaces.schemas.js';

export const NameBody = Type.Object({ name: Name() });
export const BackgroundBody = Type.Object({
  background: Type.Union([Background, Type.Null()], { description: 'preset key, #RRGGBB, or null for none; replaces a custom image' }),
});
export const IconBody = Type.Object({ icon: Type.Union([Icon, Type.Null()], { description: 'emoji or icon key; null resets it' }) });
export const IconColorBody = Type.Object({ iconColor: Type.Union([Color, Type.Null()], { description: '#RRGGBB; null resets it' }) });
