/**
 * The webhook module's use of the shared outbound guard (src/platform/outbound.ts): its messages
 * name webhooks, and a refused URL answers WEBHOOK_URL_FORBIDDEN (a published code).
 */
import {
  assertConnectTarget,
  assertOutboundUrl,
  guardedLookupFor,
  resolvesForbidden,
  type OutboundSubject,
  type RefusalLog,
} from '../../platform/outbound.js';

export { ForbiddenAddressError, forbiddenAddressReason, hostOf, isAllowListed, type RefusalLog } from '../../platform/outbound.js';

const WEBHOOKS: OutboundSubject = { label: 'webhooks', code: 'WEBHOOK_URL_FORBIDDEN' };

export const RESOLVES_FORBIDDEN = resolvesForbidden(WEBHOOKS);

export const assertWebhookUrl = (raw: string, allowedHosts: readonly string[], log?: RefusalLog): Promise<URL> =>
  assertOutboundUrl(raw, allowedHosts, { subject: WEBHOOKS, ...(log ? { log } : {}) });

export const guardedLookup = guardedLookupFor(WEBHOOKS);

export const assertDeliveryTarget = assertConnectTarget;
