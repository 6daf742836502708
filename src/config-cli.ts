import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrExit } from './config.js';
import { effectiveConfiguration, withTable } from './config/report.js';

// `npm run config:check`: the configuration this environment gives, secrets masked (an invalid
// value exits 78 as the service would). `npm run docs:config`: rewrites the settings table of
// docs/operations.md from the settings list.
const page = path.resolve(import.meta.dirname, '../docs/operations.md');

const command = process.argv[2];
if (command === 'check') {
  const config = loadConfigOrExit(process.env);
  console.log(effectiveConfiguration(process.env, config).join('\n'));
} else if (command === 'docs') {
  writeFileSync(page, withTable(readFileSync(page, 'utf8')));
  console.log(`wrote ${path.relative(process.cwd(), page)}`);
} else {
  console.error('usage: tsx src/config-cli.ts check|docs');
  process.exit(2);
}
