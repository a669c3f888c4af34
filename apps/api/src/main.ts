import { loadConfig, Role } from '../../../libs/platform/src';
import { createHttpApp } from './http-app';

/** `npm start`: embedded, API + projector + workers in one process. `--role=api`: the API alone. */
async function main(): Promise<void> {
  const role = (process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'all') as Role;
  if (role !== 'all' && role !== 'api')
    throw new Error(`apps/api runs --role=all or --role=api, not ${role}`);
  const config = loadConfig();
  const app = await createHttpApp({ config, role });
  await app.listen(config.port, config.host);
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  console.log(
    `Delivery Evidence Service (${config.mode}, role ${role}) on ${url}/api/v2 — ` +
      `event store ${config.eventStore.kind}, read store ${config.readStore.kind}, jobs ${config.jobs.kind}; ` +
      `OpenAPI ${url}/api/v2/openapi.json`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
