import type { App } from '../../platform/types.js';

/**
 * Sign-in requests per client address (a keyed hash of it), counted before the body is read, in one
 * budget for every step of signing in; failed sign-ins also make the next ones wait, per account
 * and address (platform/brute-force.ts).
 */
export function signInAddressLimit(app: App) {
  return app.rateLimit({
    max: app.config.authRateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (r) => app.authGuard.key('auth-ip', r.ip),
    onExceeded: (r) => app.authGuard.deny(r.log, 'throttled', r.ip),
  });
}
