import { ensureWebBuild } from '../../scripts/build-web.mjs';

/** The browser tests serve the built client: build it first when web/src changed since the last build. */
export default async function setup(): Promise<void> {
  await ensureWebBuild();
}
