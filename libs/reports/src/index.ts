export * from './pdf-renderer';
export * from './html';
