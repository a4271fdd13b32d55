import type { AppName } from '@app/contracts';

export const MESSAGING_OPTIONS = Symbol('messaging:options');

export interface MessagingOptions {
  app: AppName;
}
