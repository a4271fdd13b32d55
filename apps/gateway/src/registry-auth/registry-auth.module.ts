import { Module } from '@nestjs/common';
import { RegistriesController } from './registries.controller.js';
import { RegistryAuthController } from './registry-auth.controller.js';
import { RegistryAuthService } from './registry-auth.service.js';

@Module({
  controllers: [RegistryAuthController, RegistriesController],
  providers: [RegistryAuthService],
  exports: [RegistryAuthService],
})
export class RegistryAuthModule {}
