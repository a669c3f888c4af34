import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '#des/event-store';
import { microsToSeconds } from '#des/event-store';
import { DomainError } from '#des/kernel';
import { CommandExecutor, stableId } from '#des/platform';
import { apiKeysDecider, apiKeysStream } from './api-keys.decider';
import { hashApiKey, newApiKey } from './api-key-secret';
import {
  Feature,
  LimitName,
  LimitOverrides,
  organizationDecider,
  organizationStream,
} from './organization.decider';
import type { Privilege } from '#des/kernel';

/** Who asks: recorded as the events' actor. */
export interface Actor {
  kind: 'service_account' | 'system';
  name: string;
}

const metadata = (org: string, actor: Actor): EventMetadata => ({ org, actor, correlation_id: randomUUID() });

export class CreateOrganization extends Command<{ name: string }> {
  constructor(
    readonly name: string,
    readonly features: Feature[],
    readonly maxUsers: number,
    readonly actor: Actor,
  ) {
    super();
  }
}

export interface CreatedAccount {
  name: string;
  privilege: Privilege;
  description: string;
  createdBy: string;
  createdAt: number;
}

export class CreateServiceAccount extends Command<CreatedAccount> {
  constructor(
    readonly org: string,
    readonly name: string,
    readonly description: string,
    readonly privilege: Privilege,
    readonly actor: Actor,
  ) {
    super();
  }
}

export interface CreatedKey {
  id: string;
  key: string;
  description: string;
  createdAt: number;
  expiresAt: number;
}

export class CreateApiKey extends Command<CreatedKey> {
  constructor(
    readonly org: string,
    readonly account: string,
    readonly description: string,
    /** UNIX seconds; 0 = never. */
    readonly expiresAt: number,
    readonly actor: Actor,
  ) {
    super();
  }
}

export class RevokeApiKey extends Command<void> {
  constructor(
    readonly org: string,
    readonly account: string,
    readonly id: string,
    readonly actor: Actor,
  ) {
    super();
  }
}

/** An operator's change to an organization's limits: some set, some reset to the default (or `all`). */
export class SetOrganizationLimits extends Command<LimitOverrides> {
  constructor(
    readonly org: string,
    readonly set: LimitOverrides,
    readonly reset: LimitName[] | 'all',
    readonly actor: Actor,
  ) {
    super();
  }
}

@CommandHandler(CreateOrganization)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganization> {
  constructor(private readonly executor: CommandExecutor) {}

  async execute(c: CreateOrganization) {
    await this.executor.execute(
      organizationStream(c.name),
      organizationDecider,
      { kind: 'create_organization', name: c.name, features: c.features, maxUsers: c.maxUsers },
      metadata(c.name, c.actor),
    );
    return { name: c.name };
  }
}

@CommandHandler(CreateServiceAccount)
export class CreateServiceAccountHandler implements ICommandHandler<CreateServiceAccount> {
  constructor(private readonly executor: CommandExecutor) {}

  async execute(c: CreateServiceAccount): Promise<CreatedAccount> {
    const done = await this.executor.execute(
      organizationStream(c.org),
      organizationDecider,
      {
        kind: 'create_service_account',
        name: c.name,
        description: c.description,
        privilege: c.privilege,
        createdBy: c.actor.name,
      },
      metadata(c.org, c.actor),
    );
    return {
      name: c.name,
      privilege: c.privilege,
      description: c.description,
      createdBy: c.actor.name,
      createdAt: microsToSeconds(done.recordedAt!),
    };
  }
}

@CommandHandler(CreateApiKey)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKey> {
  constructor(private readonly executor: CommandExecutor) {}

  async execute(c: CreateApiKey): Promise<CreatedKey> {
    await requireAccount(this.executor, c.org, c.account);
    const stream = apiKeysStream(c.org, c.account);
    for (let n = 0; ; n++) {
      const key = newApiKey();
      const id = stableId(`api-key/${n}`);
      const done = await this.executor.execute(
        stream,
        apiKeysDecider,
        {
          kind: 'create_api_key',
          id,
          account: c.account,
          hash: hashApiKey(key),
          description: c.description,
          expiresAt: c.expiresAt,
        },
        metadata(c.org, c.actor),
      );
      if (!done.resumed) {
        return {
          id,
          key,
          description: c.description,
          createdAt: microsToSeconds(done.recordedAt!),
          expiresAt: c.expiresAt,
        };
      }
      // An earlier attempt at this idempotent request created the key, and died before
      // answering: the key's only copy is lost. It is revoked, and another one made.
      await this.executor.execute(
        stream,
        apiKeysDecider,
        { kind: 'revoke_api_key', id, account: c.account },
        metadata(c.org, c.actor),
      );
    }
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey> {
  constructor(private readonly executor: CommandExecutor) {}

  async execute(c: RevokeApiKey): Promise<void> {
    await requireAccount(this.executor, c.org, c.account);
    await this.executor.execute(
      apiKeysStream(c.org, c.account),
      apiKeysDecider,
      { kind: 'revoke_api_key', id: c.id, account: c.account },
      metadata(c.org, c.actor),
    );
  }
}

@CommandHandler(SetOrganizationLimits)
export class SetOrganizationLimitsHandler implements ICommandHandler<SetOrganizationLimits> {
  constructor(private readonly executor: CommandExecutor) {}

  /** The overrides after the change. Recorded in the log: every process's projection picks it up. */
  async execute(c: SetOrganizationLimits): Promise<LimitOverrides> {
    const done = await this.executor.execute(
      organizationStream(c.org),
      organizationDecider,
      { kind: 'set_limits', set: c.set, reset: c.reset },
      metadata(c.org, c.actor),
    );
    return done.state.limits;
  }
}

/** Accounts are never deleted, so checking the organization's stream first is safe. */
async function requireAccount(executor: CommandExecutor, org: string, account: string): Promise<void> {
  const { state } = await executor.load(organizationStream(org), organizationDecider);
  if (!state.accounts[account]) throw new DomainError('not_found', 'Service account not found');
}

export const accountCommandHandlers = [
  CreateOrganizationHandler,
  CreateServiceAccountHandler,
  CreateApiKeyHandler,
  RevokeApiKeyHandler,
  SetOrganizationLimitsHandler,
];
