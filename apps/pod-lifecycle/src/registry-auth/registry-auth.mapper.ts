import type { RegistryAuthView } from '@app/contracts';
import type { RegistryAuthEntity } from './registry-auth.entity.js';

/** What users see of a credential: never the password, sealed or not. */
export function toRegistryAuthView(entity: RegistryAuthEntity): RegistryAuthView {
  return { id: entity.id, name: entity.name };
}
