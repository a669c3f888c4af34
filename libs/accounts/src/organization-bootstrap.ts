import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  Actor,
  CreateApiKey,
  CreatedKey,
  CreateOrganization,
  CreateServiceAccount,
} from './accounts.commands';
import { Feature } from './organization.decider';

const SYSTEM: Actor = { kind: 'system', name: 'bootstrap' };
export const BOOTSTRAP_ACCOUNT = 'admin';

/** Creates an organization with an `admin` service account and its first key (shown once). */
@Injectable()
export class OrganizationBootstrap {
  constructor(private readonly commands: CommandBus) {}

  async createOrganization(name: string, features: Feature[], maxUsers: number): Promise<CreatedKey> {
    await this.commands.execute(new CreateOrganization(name, features, maxUsers, SYSTEM));
    await this.commands.execute(
      new CreateServiceAccount(
        name,
        BOOTSTRAP_ACCOUNT,
        'Administrator created with the organization',
        'admin',
        SYSTEM,
      ),
    );
    return this.createKey(name, BOOTSTRAP_ACCOUNT, 'Bootstrap key');
  }

  /** A new key for an existing account: how an operator recovers a lost admin key. */
  createKey(org: string, account: string, description: string): Promise<CreatedKey> {
    return this.commands.execute(new CreateApiKey(org, account, description, 0, SYSTEM));
  }
}
