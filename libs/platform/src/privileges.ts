import { SetMetadata } from '@nestjs/common';

import type { Privilege } from '#des/kernel';

export const REQUIRED_PRIVILEGE = 'des:required-privilege';
export const PUBLIC_ROUTE = 'des:public-route';

/** The privilege a route needs. Every route declares one, or is @Public(). */
export const Requires = (privilege: Privilege) => SetMetadata(REQUIRED_PRIVILEGE, privilege);
/** No authentication: probes and metrics only. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);
