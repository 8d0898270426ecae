/** Who is calling: resolved once per request by the guard, read by handlers through @CurrentPrincipal(). */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  projectId: string;
  apiKeyId: string;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetMs: number;
}
