/** class-transformer ships its metadata storage without typings at this path (class-validator-jsonschema reads it). */
declare module 'class-transformer/cjs/storage.js' {
  import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';

  export const defaultMetadataStorage: MetadataStorage;
}
