import { parseArgs } from 'node:util';
import { loadConfigOrExit } from './config.js';

// `npm run create-admin -- <email> [--name "Ada Lovelace"] [--reset-password]`: the first operator
// account, on whichever database the environment selects. `--reset-2fa` instead turns off an
// account's two-factor sign-in (a lost authenticator and recovery codes) and promotes nobody. No jobs run and nothing listens; on the
// embedded database the service must be stopped (one process per data directory).
const USAGE = 'usage: npm run create-admin -- <email> [--name "Full Name"] [--reset-password] | <email> --reset-2fa';

function usage(code: number): never {
  console.error(USAGE);
  process.exit(code);
}

const options = { name: { type: 'string' }, 'reset-password': { type: 'boolean', default: false }, 'reset-2fa': { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } as const;
let parsed: ReturnType<typeof parseArgs<{ allowPositionals: true; options: typeof options }>>;
try {
  parsed = parseArgs({ allowPositionals: true, options });
} catch {
  usage(2);
}
const { values, positionals } = parsed;
const email = positionals[0];
if (values.help) usage(0);
if (!email || positionals.length > 1 || !/^[^\s@]+@[^\s@]+$/.test(email)) usage(2);
if (values['reset-2fa'] && (values['reset-password'] || values.name !== undefined)) usage(2);

// Loaded only now: a wrong command line answers at once, without loading the whole service.
const { buildApp } = await import('./app.js');
const { createOperator, resetOperatorTwoFactor } = await import('./modules/auth/operator.service.js');
const config = loadConfigOrExit(process.env, { jobsEnabled: false, logLevel: process.env.LOG_LEVEL || 'warn' });
const app = await buildApp(config).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
try {
  if (values['reset-2fa']) {
    const r = await resetOperatorTwoFactor(app, email);
    console.log(`${r.hadTwoFactor ? 'turned off two-factor sign-in of' : 'no two-factor sign-in was on for'} ${r.email} (user ${r.userId}); ${r.revokedSessions} session(s) signed out`);
  } else await promote();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await app.close();
}

async function promote(): Promise<void> {
  const r = await createOperator(app, { email, name: values.name, resetPassword: values['reset-password'] });
  console.log(`${r.created ? 'created' : 'promoted'} operator ${r.email} (user ${r.userId}), ${r.role} of organization ${r.organizationId}`);
  if (r.password) {
    console.log(`one-time password: ${r.password}`);
    console.log(`sign in (POST ${config.publicUrl}/auth/login) and change it at once (PATCH /user/password)`);
  } else {
    console.log('password unchanged (--reset-password sets a new one and signs out its sessions)');
  }
}
