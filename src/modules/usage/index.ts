/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { MeterService } from './meter.service';
export { type PendingClose, PendingUsageWriter } from './pending-usage.writer';
export { UsageModule } from './usage.module';
