import { t, type MessageKey } from '../i18n';

const LABELS: Record<string, MessageKey> = {
  'tasks:read': 'oauth.scope.tasksRead',
  'tasks:write': 'oauth.scope.tasksWrite',
  'docs:read': 'oauth.scope.docsRead',
};

/** A scope as people read it (the consent screen and Connected apps); an unknown one as it is. */
export const scopeLabel = (scope: string): string => (LABELS[scope] ? t(LABELS[scope]) : scope);
