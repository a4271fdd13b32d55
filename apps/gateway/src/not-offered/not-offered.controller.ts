import { Controller, RequestMapping, RequestMethod } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { DomainError, ErrorCode } from '@app/contracts';
import { Auth, Resource } from '../auth/auth.decorators.js';
import { NOT_OFFERED_ROUTES, notOfferedDetail } from '../edge/not-offered.js';
import { Operation } from '../openapi/openapi.decorators.js';

/** The controller of NOT_OFFERED_ROUTES: one handler per row, made from the table (so none is forgotten). */
@ApiTags('Not offered by a self-hosted deployment')
@Auth({ key: 'bearer' })
@Resource('catalog')
@Controller()
export class NotOfferedController {}

for (const route of NOT_OFFERED_ROUTES) {
  const prototype = NotOfferedController.prototype as unknown as Record<string, unknown>;
  const detail = notOfferedDetail(route);
  // A method named after the row (Swagger names the OpenAPI operation after the function); async, as a handler
  // documented without `returns` resolves to void: the throw becomes a rejection.
  const handlers = {
    async [route.operation](): Promise<void> {
      await Promise.resolve();
      throw new DomainError(ErrorCode.NotAvailable, detail);
    },
  };
  prototype[route.operation] = handlers[route.operation];
  const descriptor = Object.getOwnPropertyDescriptor(prototype, route.operation)!;
  const decorators: MethodDecorator[] = [
    RequestMapping({ path: route.path, method: RequestMethod[route.method] }),
    ...[...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ApiParam({ name, type: String })),
  ];
  for (const decorate of decorators) decorate(prototype, route.operation, descriptor);
  Operation(`${route.feature}: not offered by a self-hosted deployment`, {
    unavailable: true,
    errors: { 501: detail },
  })(prototype, route.operation, descriptor);
  Object.defineProperty(prototype, route.operation, descriptor);
}
