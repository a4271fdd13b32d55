import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@app/platform';
import { PodLifecycleConfig } from './pod-lifecycle.config.js';
import { DATA_SOURCE_SPEC } from './data-source.js';
import { PodsModule } from './pods/pods.module.js';
import { RegistryAuthModule } from './registry-auth/registry-auth.module.js';
import { RuntimeModule } from './runtime/runtime.module.js';
import { TemplatesModule } from './templates/templates.module.js';

@Module({})
export class AppModule {
  static forRoot(config: PodLifecycleConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forApp({
          app: 'pod-lifecycle',
          configClass: PodLifecycleConfig,
          config,
          database: DATA_SOURCE_SPEC,
        }),
        RegistryAuthModule,
        TemplatesModule,
        PodsModule,
        RuntimeModule,
      ],
    };
  }
}
