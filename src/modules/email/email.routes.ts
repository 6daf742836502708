import type { App } from '../../platform/types.js';
import { startEmail } from './email.outbox.js';

/** The email module: its sender (when SMTP_URL is set). */
export default async function emailRoutes(app: App): Promise<void> {
  startEmail(app);
}
