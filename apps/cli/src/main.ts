import { loadConfig } from '../../../libs/platform/src';
import { rebuild } from './rebuild';

const USAGE = `usage: npm run cli -- <command>

commands:
  rebuild    drop every read model and replay the event log into it (progress bar)
`;

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
    case 'rebuild':
      await rebuild(loadConfig());
      return 0;
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return 0;
    default:
      console.error(`unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
