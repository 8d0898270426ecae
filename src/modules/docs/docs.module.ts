import { Module } from '@nestjs/common';
import { AsyncApiController } from './asyncapi.controller';
import { OpenApiDocumentHolder } from './openapi-document.holder';
import { OpenApiController } from './openapi.controller';

@Module({ controllers: [OpenApiController, AsyncApiController], providers: [OpenApiDocumentHolder] })
export class OpenApiModule {}
