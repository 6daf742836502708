import type { App } from '../../platform/types.js';
import llmSettingsRoutes from './settings.routes.js';
import indexingRoutes from './index/indexing.routes.js';
import askRoutes from './ask/ask.routes.js';

/** routes.md "AI assistant": model settings, the index and its jobs, and asking. */
export default async function aiRoutes(app: App): Promise<void> {
  await app.register(llmSettingsRoutes);
  await app.register(indexingRoutes);
  await app.register(askRoutes);
}
