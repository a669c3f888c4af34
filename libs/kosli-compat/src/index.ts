export * from './kosli-compat.module';
