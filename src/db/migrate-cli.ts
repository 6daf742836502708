import { loadConfigOrExit } from '../config.js';
import { openDatabase } from './client.js';

// `npm run migrate`: opens the configured database, which applies pending migrations, and closes it.
const config = loadConfigOrExit();
const database = await openDatabase(config);
await database.close();
console.log(`migrations applied (${database.kind})`);
