import { registerEnumType } from '@nestjs/graphql';

/** `flashBootType`, written unquoted in GraphQL (`flashBootType: FLASHBOOT`). */
export enum FlashBootType {
  OFF = 'OFF',
  FLASHBOOT = 'FLASHBOOT',
}

registerEnumType(FlashBootType, {
  name: 'FlashBootType',
  description:
    'FLASHBOOT keeps stopped workers and resumes them for faster cold starts; OFF creates new ones',
});
