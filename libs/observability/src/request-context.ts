import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** What every log line and every outgoing message of one request or one handled message carries. */
export interface RequestContext {
  correlationId: string;
  userId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const requestContext = {
  run<T>(context: RequestContext, fn: () => T): T {
    return storage.run(context, fn);
  },
  current(): RequestContext | undefined {
    return storage.getStore();
  },
  correlationId(): string {
    return storage.getStore()?.correlationId ?? randomUUID();
  },
  /** Names the user (found by the auth guard) in the current request's context, for its later log lines. */
  identify(userId: string): void {
    const store = storage.getStore();
    // A property set, not Object.assign of a patch object: this runs on every authenticated request.
    if (store) store.userId = userId;
  },
};
