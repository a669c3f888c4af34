import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DomainError } from '#des/kernel';
import { Config, PlatformModule } from '#des/platform';
import { AccountsCommandsModule, FEATURES, Feature, OrganizationBootstrap } from '#des/accounts';
import { allProjections, allUpcasters } from '#des/service';

async function withBootstrap<T>(config: Config, run: (b: OrganizationBootstrap) => Promise<T>): Promise<T> {
  @Module({
    imports: [
      PlatformModule.forRoot({ config, role: 'cli', projections: allProjections, upcasters: allUpcasters }),
      AccountsCommandsModule,
    ],
  })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    return await run(app.get(OrganizationBootstrap));
  } catch (error) {
    if (error instanceof DomainError) throw new Error(error.message);
    throw error;
  } finally {
    await app.close();
  }
}

export function parseFeatures(value: string | undefined): Feature[] {
  if (!value) return [];
  const features = value
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = features.filter((f) => !(FEATURES as readonly string[]).includes(f));
  if (unknown.length)
    throw new Error(`unknown feature(s) ${unknown.join(', ')}; known: ${FEATURES.join(', ')}`);
  return features as Feature[];
}

/** `org create <org> [--features evaluations,controls] [--max-users N]`: prints the admin key once. */
export async function createOrganization(
  config: Config,
  org: string,
  features: Feature[],
  maxUsers: number,
): Promise<void> {
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._~-]{0,63}$/.test(org)) {
    throw new Error(
      'organization names are 1-64 letters, digits, ".", "_", "~" or "-", starting with a letter or digit',
    );
  }
  if (!Number.isInteger(maxUsers) || maxUsers < 1)
    throw new Error('--max-users takes a whole number of at least 1');
  const created = await withBootstrap(config, (b) => b.createOrganization(org, features, maxUsers));
  console.log(
    `Created organization '${org}' (features: ${features.join(', ') || 'none'}; at most ${maxUsers} users) ` +
      `with service account 'admin'. Its API key, shown this once:\n\n    ${created.key}\n`,
  );
}

/** `key create <org> <account>`: a new key for an existing account (a lost admin key, say). */
export async function createKey(
  config: Config,
  org: string,
  account: string,
  description: string,
): Promise<void> {
  const created = await withBootstrap(config, (b) => b.createKey(org, account, description));
  console.log(
    `New API key ${created.id} for '${account}' in '${org}', shown this once:\n\n    ${created.key}\n`,
  );
}
