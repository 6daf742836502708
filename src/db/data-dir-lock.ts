import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * PGlite is PostgreSQL inside this process, with no postmaster to keep a second process off its
 * files: two processes on one data directory corrupt it. The first to open it takes this lock; a
 * second (another server, `npm run create-admin` while the service runs) stops with an error
 * instead. A lock left by a process that died is taken over. Answers the release.
 */
export function lockDataDir(dir: string): () => void {
  const file = path.join(dir, 'workboard.pid');
  for (;;) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(file, 'utf8').trim()) || 0;
      // Our own pid: a container restarted with the same pid as before, not a live second user.
      if (holder && holder !== process.pid && alive(holder)) {
        throw new Error(`the data directory ${dir} is in use by process ${holder} (a running service?); stop it first, or delete ${file} if that process is not this service`);
      }
      rmSync(file, { force: true });
    }
  }
  return () => {
    try {
      if (Number(readFileSync(file, 'utf8').trim()) === process.pid) rmSync(file);
    } catch {
      // already gone
    }
  };
}
