import { readFileSync } from 'node:fs';

/** The service's version, from package.json (one directory up, from src/ and from dist/ alike). */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
