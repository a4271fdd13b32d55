import { Module } from '@nestjs/common';
import { CreateRegistryAuthHandler } from './create-registry-auth/create-registry-auth.handler.js';
import { DeleteRegistryAuthHandler } from './delete-registry-auth/delete-registry-auth.handler.js';
import { GetRegistryAuthHandler } from './get-registry-auth/get-registry-auth.handler.js';
import { ListRegistryAuthHandler } from './list-registry-auth/list-registry-auth.handler.js';
import { RegistryAuthRepository } from './registry-auth.repository.js';

@Module({
  providers: [
    RegistryAuthRepository,
    CreateRegistryAuthHandler,
    DeleteRegistryAuthHandler,
    ListRegistryAuthHandler,
    GetRegistryAuthHandler,
  ],
})
export class RegistryAuthModule {}
