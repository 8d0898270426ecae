/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { AuthModule } from './auth.module';
export { AuthService } from './auth.service';
export { Auth } from './auth.decorator';
export { Authenticated, Public } from './authenticated.decorator';
export { Credential, extractHeaderCredential, isApiKey, isClientSecret, queryCarriesApiKey } from './credentials';
export { FailedAuthThrottle } from './failed-auth.throttle';
export { CredentialSigner } from './credential-signer';
export { CredentialSigningModule } from './credential-signing.module';
export {
  type AdminPrincipal,
  type ApiKeyPrincipal,
  type PresentedApiKey,
  type RateLimitState,
  type RequestRate,
} from './principal';
export { type KeyCheck } from './key-checks.repository';
