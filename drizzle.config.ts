import { defineConfig } from 'drizzle-kit';

// Migrations are generated from src/db/schema and committed; the app applies them at start.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './src/db/migrations',
});
