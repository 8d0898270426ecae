/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { OpenApiModule } from './docs.module';
export { OpenApiDocumentHolder } from './openapi-document.holder';
export { findPlaygroundAssets, servePlayground } from './playground-assets';
