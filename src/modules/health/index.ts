/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { HealthModule } from './health.module';
export { LifecycleState } from './lifecycle-state';
