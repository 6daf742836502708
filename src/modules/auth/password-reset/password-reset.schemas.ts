import { Type } from 'typebox';

export const PasswordResetBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$', description: 'the account’s email address' }),
});

export const PasswordResetConfirmBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'the token of the emailed link' }),
  password: Type.String({ minLength: 8, maxLength: 200, description: 'the new password' }),
});

export const PasswordResetConfirmResult = Type.Object({
  revokedSessions: Type.Integer({ description: 'sessions of the account signed out' }),
});

export const PasswordResetAccepted = Type.Object({
  message: Type.String({ description: 'the same sentence whether or not the address has an account' }),
});
