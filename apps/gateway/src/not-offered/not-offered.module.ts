import { Module } from '@nestjs/common';
import { NotOfferedController } from './not-offered.controller.js';

/** RunPod's routes a self-hosted deployment does not offer (edge/not-offered.ts): imported by AppModule first. */
@Module({ controllers: [NotOfferedController] })
export class NotOfferedModule {}
