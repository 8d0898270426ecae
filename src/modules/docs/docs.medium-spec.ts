import { MediumModule, mediumModule } from '../../../test/support/medium';
import { AsyncApiController } from './asyncapi.controller';
import { OpenApiModule } from './docs.module';
import { OpenApiDocumentHolder } from './openapi-document.holder';
import { OpenApiController } from './openapi.controller';

/** The docs module serves the documents the app built at setup, and never a missing one as empty. */
describe('docs module', () => {
  let m: MediumModule;
  beforeAll(async () => {
    m = await mediumModule(null, { imports: [OpenApiModule] });
  });
  afterAll(() => m?.close());

  it('refuses to serve a document before the app set it, then serves that document as it is', () => {
    const openapi = m.get(OpenApiController);
    const asyncapi = m.get(AsyncApiController);
    expect(() => openapi.getOpenApiDocument()).toThrow(/before the app was configured/);
    expect(() => asyncapi.getAsyncApiDocument()).toThrow(/before the app was configured/);
    const document = { openapi: '3.0.0', info: { title: 'Continuum', version: '1' }, paths: {} };
    m.get(OpenApiDocumentHolder).document = document;
    asyncapi.document = { asyncapi: '3.0.0' };
    expect(openapi.getOpenApiDocument()).toBe(document);
    expect(asyncapi.getAsyncApiDocument()).toEqual({ asyncapi: '3.0.0' });
  });
});
