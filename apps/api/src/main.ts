import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  assertWritableDataDir,
  causeOf,
  EVENT_STORE,
  listenError,
  loadConfig,
  onStopSignal,
  processLogger,
  Role,
  runMain,
  StartupError,
} from '#des/platform';
import type { EventStore } from '#des/event-store';
import { FEATURES, OrganizationBootstrap } from '#des/accounts';
import { createHttpApp, stopHttpApp } from '#des/service';
import { DomainError } from '#des/kernel';
import type { Logger } from 'pino';

const DEFAULT_MAX_USERS = 100;
/** Where the first organization's admin key is kept (readable by its owner only). */
const FIRST_KEY_FILE = 'initial-admin-key';
/** sysexits.h: the command was used wrongly. */
const EX_USAGE = 64;

/** `npm start`: embedded, API + projector + workers in one process. `--role=api`: the API alone. */
runMain(async () => {
  const role = (process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'all') as Role;
  if (role !== 'all' && role !== 'api')
    throw new StartupError(`apps/api runs --role=all or --role=api, not --role=${role}`, EX_USAGE);
  const config = loadConfig();
  assertWritableDataDir(config.dataDir);
  const logger = processLogger(config.logLevel, role);
  logger.info(`starting (${config.mode} mode, role ${role})`);
  const app = await createHttpApp({ config, role, logger });
  await app.init();

  // First start on an empty store: create the default organization; its admin key is shown once, never logged.
  const empty = await app
    .get<EventStore>(EVENT_STORE)
    .head()
    .then(
      (head) => head.position === 0,
      (error: unknown) => {
        logger.warn(
          `the event store does not answer (${causeOf(error)}): no first organization is made at this start`,
        );
        return false;
      },
    );
  if (empty) {
    const org = config.firstOrganization;
    const created = await app
      .get(OrganizationBootstrap)
      .createOrganization(org, [...FEATURES], DEFAULT_MAX_USERS)
      .catch((error: unknown) => {
        // Several API processes started at once on an empty log: one of them makes it.
        if (error instanceof DomainError && error.kind === 'conflict') return undefined;
        throw error;
      });
    if (!created) {
      logger.info(`organization '${org}' was made by another process starting at the same time`);
    } else {
      showFirstKey(config.dataDir, org, created.key, logger);
    }
  }

  onStopSignal(logger, (signal) => stopHttpApp(app, signal, logger));
  await app.listen(config.port, config.host).catch((error: unknown) => {
    throw listenError(error, 'the API', config.host, config.port);
  });
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  logger.info(
    `Delivery Evidence Service (${config.mode}, role ${role}) on ${url}/api/v2 — ` +
      `event store ${config.eventStore.kind}, read store ${config.readStore.kind}, jobs ${config.jobs.kind}; ` +
      `workspace ${url}/ui/; API reference ${url}/api/v2/docs (OpenAPI ${url}/api/v2/openapi.json)`,
  );
});

/** The first organization's admin key: on the terminal (stderr) once and in a file only its owner reads; never in the log. */
function showFirstKey(dataDir: string, org: string, key: string, logger: Logger): void {
  const keyFile = join(dataDir, FIRST_KEY_FILE);
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  logger.info(
    `created organization '${org}' with service account 'admin'; its API key is in ${keyFile} (mode 0600)`,
  );
  process.stderr.write(
    `\nCreated organization '${org}' (features: ${FEATURES.join(', ')}) with service account 'admin'.\n` +
      `Its API key, shown this once and kept in ${keyFile} (keep it; \`npm run cli -- key create ${org} admin\` mints another):\n\n` +
      `    ${key}\n\n`,
  );
}
