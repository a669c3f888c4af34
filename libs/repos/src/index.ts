export * from './repos.module';
