/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { ClientSecretsModule } from './client-secrets.module';
export { ClientSecretsService } from './client-secrets.service';
export { NullableField, OptionalField } from './dto/request-field.validators';
export {
  REALTIME_SESSION_CHECK,
  type RealtimeSessionCheck,
  type RealtimeSessionVerdict,
} from './realtime-session-check';
