/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { ModelCatalog } from './model-catalog';
export { ModelsModule } from './models.module';
