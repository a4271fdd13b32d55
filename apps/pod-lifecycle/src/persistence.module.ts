import { Module } from '@nestjs/common';
import { PodRepository } from './pods/pod.repository.js';
import { RegistryAuthRepository } from './registry-auth/registry-auth.repository.js';
import { PodsUsingRegistryAuth, TemplatesUsingRegistryAuth } from './registry-auth/registry-auth.users.js';
import { TemplateRepository } from './templates/template.repository.js';
import { PodsUsingTemplate } from './templates/template.users.js';

/**
 * pod-lifecycle's repositories, shared by its features, and the answers a referenced feature asks of the ones
 * that reference it (a credential's delete asks templates and pods whether they use it): the referenced feature
 * declares the question, the referencing repository answers it, this module wires the two, so features depend
 * one way (pods → templates → registry-auth).
 */
@Module({
  providers: [
    PodRepository,
    TemplateRepository,
    RegistryAuthRepository,
    { provide: PodsUsingTemplate, useExisting: PodRepository },
    { provide: PodsUsingRegistryAuth, useExisting: PodRepository },
    { provide: TemplatesUsingRegistryAuth, useExisting: TemplateRepository },
  ],
  exports: [
    PodRepository,
    TemplateRepository,
    RegistryAuthRepository,
    PodsUsingTemplate,
    PodsUsingRegistryAuth,
    TemplatesUsingRegistryAuth,
  ],
})
export class PersistenceModule {}
