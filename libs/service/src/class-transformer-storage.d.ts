// class-transformer's metadata storage (where @Type is kept) is not in its typed entry points.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
