const KEY = 'workboard.returnPath';

/**
 * A page to come back to after a sign-in that leaves the web client (single sign-on goes to the
 * identity provider and back to its callback page). Only the consent screen uses it, and only its
 * own paths are taken back, so nothing else can be smuggled in as a place to go.
 */
export const keepReturnPath = (path: string) => sessionStorage.setItem(KEY, path);

export function takeReturnPath(): string | null {
  const path = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  return path && /^\/oauth\/[A-Za-z0-9_-]+$/.test(path) ? path : null;
}
