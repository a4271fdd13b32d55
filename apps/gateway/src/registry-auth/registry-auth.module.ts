import { Module } from '@nestjs/common';
import { RegistryAuthController } from './registry-auth.controller.js';
import { RegistryAuthService } from './registry-auth.service.js';

@Module({ controllers: [RegistryAuthController], providers: [RegistryAuthService] })
export class RegistryAuthModule {}
