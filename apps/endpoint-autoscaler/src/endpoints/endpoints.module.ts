import { Module } from '@nestjs/common';
import { PersistenceModule } from '../persistence.module.js';
import { EndpointReferences } from './endpoint-references.js';
import { DeleteEndpointHandler } from './delete-endpoint/delete-endpoint.handler.js';
import { GetEndpointHandler } from './get-endpoint/get-endpoint.handler.js';
import { ListEndpointsHandler } from './list-endpoints/list-endpoints.handler.js';
import { RemoveEndpointHandler } from './remove-endpoint/remove-endpoint.handler.js';
import { SaveEndpointHandler } from './save-endpoint/save-endpoint.handler.js';

@Module({
  imports: [PersistenceModule],
  providers: [
    EndpointReferences,
    SaveEndpointHandler,
    DeleteEndpointHandler,
    RemoveEndpointHandler,
    GetEndpointHandler,
    ListEndpointsHandler,
  ],
})
export class EndpointsModule {}
