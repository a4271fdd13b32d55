import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = Symbol('platform:public');

/** A route that needs no API key (health, readiness, metrics). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
