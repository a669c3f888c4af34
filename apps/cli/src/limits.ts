import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { DomainError, TENANT_LIMIT_NAMES } from '#des/kernel';
import { CommandExecutor, Config, PlatformModule, TENANT_LIMIT_DEFAULTS } from '#des/platform';
import {
  AccountsCommandsModule,
  effectiveLimits,
  LimitName,
  LimitOverrides,
  organizationDecider,
  organizationStream,
  SetOrganizationLimits,
} from '#des/accounts';
import { allProjections, allUpcasters } from '#des/service';

/** `writesPerSecond` → `writes-per-second`: each limit's flag. */
export const limitFlag = (name: LimitName): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The flags `org limits` takes, one per limit. */
export const LIMIT_FLAGS = Object.fromEntries(
  TENANT_LIMIT_NAMES.map((name) => [limitFlag(name), { type: 'string' as const }]),
);

/** The overrides and resets the flags ask for; a value is a whole number ≥ 0 (0: unlimited). */
export function parseLimitFlags(
  values: Record<string, unknown>,
  resets: string[],
): { set: LimitOverrides; reset: LimitName[] | 'all' } {
  const set: LimitOverrides = {};
  for (const name of TENANT_LIMIT_NAMES) {
    const raw = values[limitFlag(name)];
    if (typeof raw !== 'string') continue;
    if (!/^\d+$/.test(raw))
      throw new Error(`--${limitFlag(name)} takes a whole number ≥ 0 (0: unlimited), got '${raw}'`);
    set[name] = Number(raw);
  }
  if (resets.includes('all')) return { set, reset: 'all' };
  const reset = resets.map((given) => {
    const name = TENANT_LIMIT_NAMES.find((n) => n === given || limitFlag(n) === given);
    if (!name)
      throw new Error(
        `--reset takes a limit (${TENANT_LIMIT_NAMES.map(limitFlag).join(', ')}) or 'all', got '${given}'`,
      );
    return name;
  });
  return { set, reset };
}

/**
 * `org limits <org> [--<limit> N …] [--reset <limit|all>]`: sets or resets
 * the organization's overrides (recorded in the log; a running service picks
 * them up from it), then prints its effective limits and which are overridden.
 */
export async function orgLimits(
  config: Config,
  org: string,
  change: { set: LimitOverrides; reset: LimitName[] | 'all' },
): Promise<void> {
  @Module({
    imports: [
      PlatformModule.forRoot({ config, role: 'cli', projections: allProjections, upcasters: allUpcasters }),
      AccountsCommandsModule,
    ],
  })
  class CliModule {}
  const app = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    const changing = Object.keys(change.set).length > 0 || change.reset === 'all' || change.reset.length > 0;
    if (changing) {
      await app.get(CommandBus).execute(new SetOrganizationLimits(org, change.set, change.reset, CLI));
    }
    const { state } = await app.get(CommandExecutor).load(organizationStream(org), organizationDecider);
    if (!state.exists) throw new Error('Organization not found');
    console.log(describeLimits(org, config, state.limits));
  } catch (error) {
    if (error instanceof DomainError) {
      const detail = Object.entries(error.errors ?? {})
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ');
      throw new Error(detail ? `${error.message}: ${detail}` : error.message);
    }
    throw error;
  } finally {
    await app.close();
  }
}

const CLI = { kind: 'system', name: 'cli' } as const;

function describeLimits(org: string, config: Config, overrides: LimitOverrides): string {
  const limits = effectiveLimits(config.tenantLimits, overrides);
  const width = Math.max(...TENANT_LIMIT_NAMES.map((n) => n.length));
  const lines = TENANT_LIMIT_NAMES.map((name) => {
    const { env } = TENANT_LIMIT_DEFAULTS[name];
    const source =
      overrides[name] === undefined
        ? `default (${env})`
        : `overridden (default ${config.tenantLimits[name]} from ${env})`;
    return `  ${name.padEnd(width)}  ${String(limits[name]).padStart(13)}  ${source}`;
  });
  return [`Limits of '${org}' (0: unlimited; defaults as this environment sets them):`, ...lines].join('\n');
}
