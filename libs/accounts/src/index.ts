/** What `#des/accounts` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { SetOrganizationLimits } from './accounts.commands';
export { AccountsCommandsModule, TenantAccountingModule, accountsFeature } from './accounts.module';
export { hashApiKey } from './api-key-secret';
export { requestMetadata, type AuthenticatedRequest } from './auth.guard';
export { requireFeature } from './beta-features';
export { OrganizationBootstrap } from './organization-bootstrap';
export {
  FEATURES,
  organizationDecider,
  organizationStream,
  type Feature,
  type LimitName,
  type LimitOverrides,
} from './organization.decider';
export { effectiveLimits } from './tenant-accounting';
export { keyGate, orgCheckedAtTheGate } from './key-gate';
export { KeyLookups } from './key-lookups';
