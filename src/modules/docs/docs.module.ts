import { DynamicModule, FactoryProvider, Module, ValueProvider } from '@nestjs/common';
import { AsyncApiController } from './asyncapi.controller';
import { OpenApiDocumentHolder } from './openapi-document.holder';
import { OpenApiController } from './openapi.controller';

@Module({})
export class OpenApiModule {
  /**
   * `asyncApiDocument` provides ASYNCAPI_DOCUMENT (platform/openapi): the socket layer's, which this module
   * may not import, so the app hands it over.
   */
  static forRoot(asyncApiDocument: FactoryProvider<object> | ValueProvider<object>): DynamicModule {
    return {
      module: OpenApiModule,
      controllers: [OpenApiController, AsyncApiController],
      providers: [OpenApiDocumentHolder, asyncApiDocument],
    };
  }
}
