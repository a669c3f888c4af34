export * from './accounts.module';
export * from './accounts.commands';
export * from './accounts.projection';
export * from './auth.guard';
export * from './api-key-secret';
export * from './organization.decider';
export * from './organization-bootstrap';
export * from './beta-features';
