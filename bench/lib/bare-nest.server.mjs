// Baseline server: a bare Nest 12 app on the Fastify adapter, as our apps are built, with none of their modules
// (no config, database, NATS, auth, rate limiter, validation, logging, metrics): `GET /readyz` and
// `GET /v2/:endpointId/status/:jobId` answering a fixed COMPLETED job. The edge scenario loads its status route;
// the cold-start scenario times its start. Plain JS, so the decorators are applied as the functions they are.
//
//   HTTP_PORT=8099 node bench/lib/bare-nest.server.mjs
import 'reflect-metadata';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

class BareController {
  readyz() {
    return { status: 'ok' };
  }

  status(endpointId, jobId) {
    return { id: jobId, status: 'COMPLETED', delayTime: 1, executionTime: 1, output: { echo: { n: 1 } } };
  }
}

const method = (name) => [
  BareController.prototype,
  name,
  Object.getOwnPropertyDescriptor(BareController.prototype, name),
];
Get('readyz')(...method('readyz'));
Get('v2/:endpointId/status/:jobId')(...method('status'));
Param('endpointId')(BareController.prototype, 'status', 0);
Param('jobId')(BareController.prototype, 'status', 1);
Controller()(BareController);

class BareModule {}
Module({ controllers: [BareController] })(BareModule);

const app = await NestFactory.create(BareModule, new FastifyAdapter(), { logger: false });
app.enableShutdownHooks();
await app.listen(Number(process.env.HTTP_PORT ?? 8099), '127.0.0.1');
