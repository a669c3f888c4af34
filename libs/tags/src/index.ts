export * from './tags.module';
export * from './resource-types';
