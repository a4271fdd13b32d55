import { Module } from '@nestjs/common';
import { PersistenceModule } from '../persistence.module.js';
import { CreateRegistryAuthHandler } from './create-registry-auth/create-registry-auth.handler.js';
import { DeleteRegistryAuthHandler } from './delete-registry-auth/delete-registry-auth.handler.js';
import { GetRegistryAuthHandler } from './get-registry-auth/get-registry-auth.handler.js';
import { ListRegistryAuthHandler } from './list-registry-auth/list-registry-auth.handler.js';
import { UpdateRegistryAuthHandler } from './update-registry-auth/update-registry-auth.handler.js';

@Module({
  imports: [PersistenceModule],
  providers: [
    CreateRegistryAuthHandler,
    UpdateRegistryAuthHandler,
    DeleteRegistryAuthHandler,
    ListRegistryAuthHandler,
    GetRegistryAuthHandler,
  ],
})
export class RegistryAuthModule {}
