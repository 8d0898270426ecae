import { MediumModule, mediumModule } from '../../../test/support/medium';
import { ASYNCAPI_DOCUMENT } from '../../platform/openapi/asyncapi-document';
import { AsyncApiController } from './asyncapi.controller';
import { OpenApiModule } from './docs.module';
import { OpenApiDocumentHolder } from './openapi-document.holder';
import { OpenApiController } from './openapi.controller';

/**
 * The docs module serves the AsyncAPI document it is provided, and the OpenAPI document the app built
 * at setup, never a missing one as empty.
 */
describe('docs module', () => {
  const asyncApiDocument = { asyncapi: '3.0.0' };
  let m: MediumModule;

  beforeAll(async () => {
    m = await mediumModule(null, {
      imports: [OpenApiModule.forRoot({ provide: ASYNCAPI_DOCUMENT, useValue: asyncApiDocument })],
    });
  });
  afterAll(() => m?.close());

  it('serves the provided AsyncAPI document as it is', () => {
    expect(m.get(AsyncApiController).getAsyncApiDocument()).toBe(asyncApiDocument);
  });

  it('refuses to serve the OpenAPI document before the app set it, then serves that document as it is', () => {
    const openapi = m.get(OpenApiController);
    expect(() => openapi.getOpenApiDocument()).toThrow(/before the app was configured/);
    const document = { openapi: '3.0.0', info: { title: 'Continuum', version: '1' }, paths: {} };
    m.get(OpenApiDocumentHolder).document = document;
    expect(openapi.getOpenApiDocument()).toBe(document);
  });
});
