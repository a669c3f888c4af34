import { EVENT_STORE, loadConfig, Role } from '#des/platform';
import type { EventStore } from '#des/event-store';
import { FEATURES, OrganizationBootstrap } from '#des/accounts';
import { createHttpApp } from '#des/service';

const DEFAULT_MAX_USERS = 100;

/** `npm start`: embedded, API + projector + workers in one process. `--role=api`: the API alone. */
async function main(): Promise<void> {
  const role = (process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'all') as Role;
  if (role !== 'all' && role !== 'api')
    throw new Error(`apps/api runs --role=all or --role=api, not ${role}`);
  const config = loadConfig();
  const app = await createHttpApp({ config, role });
  await app.init();

  // First start on an empty store: create the default organization and show its admin key, once.
  if ((await app.get<EventStore>(EVENT_STORE).head()).position === 0) {
    const org = process.env.DES_ORG ?? 'demo';
    const created = await app
      .get(OrganizationBootstrap)
      .createOrganization(org, [...FEATURES], DEFAULT_MAX_USERS);
    console.log(
      `\nCreated organization '${org}' (features: ${FEATURES.join(', ')}) with service account 'admin'.\n` +
        `Its API key, shown this once (keep it; \`npm run cli -- key create ${org} admin\` mints another):\n\n` +
        `    ${created.key}\n`,
    );
  }

  await app.listen(config.port, config.host);
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  console.log(
    `Delivery Evidence Service (${config.mode}, role ${role}) on ${url}/api/v2 — ` +
      `event store ${config.eventStore.kind}, read store ${config.readStore.kind}, jobs ${config.jobs.kind}; ` +
      `workspace ${url}/ui/; API reference ${url}/api/v2/docs (OpenAPI ${url}/api/v2/openapi.json)`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
