export * from './app.module';
export * from './http-app';
export * from './features';
