/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { MetricsModule } from './metrics.module';
export { MetricsService } from './metrics.service';
export { refusalCode } from './session-metrics';
