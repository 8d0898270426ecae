/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { CLIENT_SECRET_TTL } from './client-secret-ttl';
export { ClientSecretsModule } from './client-secrets.module';
export { ClientSecretsService } from './client-secrets.service';
export { conversationSecret } from './conversation-secret';
