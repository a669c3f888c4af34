import { SetMetadata } from '@nestjs/common';

/** What a service account (and so each of its keys) may do, from least to most. */
export const PRIVILEGES = ['reader', 'snapshotter', 'member', 'admin'] as const;
export type Privilege = (typeof PRIVILEGES)[number];

/**
 * reader: GET only. snapshotter: reader + create environments and report
 * snapshots. member: every write but accounts, keys, policies and actions.
 * admin: everything.
 */
export function allows(held: Privilege, required: Privilege): boolean {
  return PRIVILEGES.indexOf(held) >= PRIVILEGES.indexOf(required);
}

export const REQUIRED_PRIVILEGE = 'des:required-privilege';
export const PUBLIC_ROUTE = 'des:public-route';

/** The privilege a route needs. Every route declares one, or is @Public(). */
export const Requires = (privilege: Privilege) => SetMetadata(REQUIRED_PRIVILEGE, privilege);
/** No authentication: probes and metrics only. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);
