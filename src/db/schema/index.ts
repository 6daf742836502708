export * from './users.js';
export * from './organizations.js';
export * from './sessions.js';
export * from './files.js';
export * from './reviews.js';
export * from './spaces.js';
export * from './projects.js';
export * from './tasks.js';
