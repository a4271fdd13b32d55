import { Module } from '@nestjs/common';
import { PodRepository } from './pods/pod.repository.js';
import { RegistryAuthRepository } from './registry-auth/registry-auth.repository.js';
import { TemplateRepository } from './templates/template.repository.js';

/** pod-lifecycle's repositories, shared by its features (a credential's delete checks templates and pods, say). */
@Module({
  providers: [PodRepository, TemplateRepository, RegistryAuthRepository],
  exports: [PodRepository, TemplateRepository, RegistryAuthRepository],
})
export class PersistenceModule {}
