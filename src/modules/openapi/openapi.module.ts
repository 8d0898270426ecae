import { Module } from '@nestjs/common';
import { OpenApiDocumentHolder } from './openapi-document.holder';
import { OpenApiController } from './openapi.controller';

@Module({ controllers: [OpenApiController], providers: [OpenApiDocumentHolder] })
export class OpenApiModule {}
