/** The module's entry for the rest of the service: other modules, the gateway and the app import only this. */
export { AuthModule } from './auth.module';
export { AuthService } from './auth.service';
export { ChecksApiKeyItself, PresentedKey } from './checks-api-key-itself.decorator';
export { Credential, extractHeaderCredential, isClientSecret, queryCarriesApiKey } from './credentials';
export { CurrentPrincipal } from './current-principal.decorator';
export { FailedAuthThrottle } from './failed-auth.throttle';
export { type ApiKeyPrincipal, type PresentedApiKey, type RateLimitState, type RequestRate } from './principal';
export { Public } from './public.decorator';
export { type KeyCheck } from './key-checks.repository';
