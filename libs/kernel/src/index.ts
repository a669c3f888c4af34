/**
 * The domain kernel: what deciders, events and their specs share. No
 * dependencies, no framework, no I/O, no HTTP: loading it costs a few modules.
 */
export type { DecideContext, Decider, DomainEvent } from './decider';
export { DomainError, type DomainErrorKind } from './domain-error';
export {
  decideTagChange,
  effectiveTagChange,
  storedTags,
  TAG_KEY,
  MAX_TAG_KEY,
  MAX_TAG_VALUE,
  tagsOf,
  storedTagsFilter,
  meetsTags,
  tagConditions,
  type TagCondition,
  withTagChange,
  type StoredTags,
  type TagChange,
  type Tags,
  type TagsChanged,
} from './tags';
export { allows, PRIVILEGES, TENANT_LIMIT_NAMES, type Privilege, type TenantLimits } from './tenancy';
export {
  INSTANT_FORMS,
  INSTANT_PATTERN,
  ISO_INSTANT_FORM,
  isoMicros,
  parseInstant,
  UNIX_INSTANT_FORM,
  unixMicros,
} from './instant';
export { NAMEABLE_ATTESTATION_TYPE, NAMEABLE_ATTESTATION_TYPES } from './attestation-type-names';
