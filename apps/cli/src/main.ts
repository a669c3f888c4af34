import { parseArgs } from 'node:util';
import { runBundleVerifier } from '#des/ledger';
import { ALL_SETTINGS, ConfigError, EX_CONFIG, loadConfig, settingsTable } from '#des/platform';
import { createKey, createOrganization, parseFeatures } from './accounts';
import { LIMIT_FLAGS, orgLimits, parseLimitFlags } from './limits';
import { rebuild } from './rebuild';
import { redeliver } from './actions';
import { verify } from './verify';
import { backup } from './backup';
import { cancelJobs, listJobs } from './jobs';

const USAGE = `usage: npm run cli -- <command>

commands:
  org create <org> [--features evaluations,controls] [--max-users N]
             create an organization with an 'admin' service account; prints its API key once
  org limits <org> [--writes-per-second N] [--event-log-bytes N] … [--reset <limit|all>]
             print the organization's effective limits and which are overridden; with flags
             (one per limit, 0: unlimited) set overrides, --reset (repeatable) removes them
             limits: ${Object.keys(LIMIT_FLAGS).join(', ')}
  key create <org> <account> [--description TEXT]
             mint a new API key for an existing service account; prints it once
  rebuild    drop every read model and replay the event log into it (progress bar)
  verify [org]
             rebuild the transparency log's trees from the log (one organization's, or all) and
             check every signed checkpoint; names the events a failing one is among; exits 1 then
  verify-bundle <file.zip | directory> [--key <vkey>]
             check an evidence bundle as its verify.mjs does (manifest, signatures, proofs);
             exits 1 naming the first failure
  actions redeliver <org> <number> <delivery>
             send a dead-lettered notification of action <number> again
  jobs list <org>
             the organization's jobs not finished (evaluations): id, kind, state, runs begun, age
  jobs cancel <org> <id> | jobs cancel <org> --all
             record one (or every) unfinished evaluation failed, 'cancelled by an operator';
             a queued job then runs nothing (embedded and server modes alike)
  backup <file>
             copy the embedded log (SQLite) to a new file while the service runs; restore it as
             events.db with the service stopped (docs/operations.md)
  config check
             check the environment's settings as a start would; exits 78 naming each wrong one
  config table
             print every setting (variable, default, accepted form, meaning) as a Markdown table
`;

async function main(argv: string[]): Promise<number> {
  // The bundle verifier reads its own arguments, as verify.mjs does.
  if (argv[0] === 'verify-bundle') return runBundleVerifier(argv.slice(1));
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      features: { type: 'string' },
      'max-users': { type: 'string', default: '100' },
      description: { type: 'string', default: 'Created with the CLI' },
      help: { type: 'boolean' },
      reset: { type: 'string', multiple: true },
      all: { type: 'boolean' },
      ...LIMIT_FLAGS,
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command === 'config' && sub === 'table' && rest.length === 0) {
    console.log(settingsTable(ALL_SETTINGS));
    return 0;
  }
  if (command === 'config' && sub === 'check' && rest.length === 0) {
    const config = loadConfig();
    console.log(`settings valid: ${config.mode} mode, data directory ${config.dataDir}`);
    return 0;
  }
  if (command === 'backup' && sub !== undefined && rest.length === 0) {
    await backup(loadConfig(), sub);
    return 0;
  }
  if (command === 'rebuild') {
    await rebuild(loadConfig());
    return 0;
  }
  if (command === 'org' && sub === 'create' && rest.length === 1) {
    await createOrganization(
      loadConfig(),
      rest[0],
      parseFeatures(values.features),
      Number(values['max-users']),
    );
    return 0;
  }
  if (command === 'org' && sub === 'limits' && rest.length === 1) {
    await orgLimits(loadConfig(), rest[0], parseLimitFlags(values, values.reset ?? []));
    return 0;
  }
  if (command === 'key' && sub === 'create' && rest.length === 2) {
    await createKey(loadConfig(), rest[0], rest[1], values.description!);
    return 0;
  }
  if (command === 'verify' && rest.length === 0) {
    return (await verify(loadConfig(), sub)) ? 0 : 1;
  }
  if (command === 'jobs' && sub === 'list' && rest.length === 1) {
    await listJobs(loadConfig(), rest[0]);
    return 0;
  }
  if (command === 'jobs' && sub === 'cancel' && rest.length === (values.all ? 1 : 2)) {
    await cancelJobs(loadConfig(), rest[0], values.all ? 'all' : { id: rest[1] });
    return 0;
  }
  if (command === 'actions' && sub === 'redeliver' && rest.length === 3) {
    if (!/^[1-9]\d*$/.test(rest[1])) throw new Error(`'${rest[1]}' is not an action number`);
    await redeliver(loadConfig(), rest[0], Number(rest[1]), rest[2]);
    return 0;
  }
  console.error(`unknown command '${positionals.join(' ')}'\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) console.error(`configuration error: ${problem}`);
      process.exit(EX_CONFIG);
    }
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
