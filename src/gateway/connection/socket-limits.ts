import type { AppConfig } from '../../config/app-config';
import type { SessionLimits } from '../../session-core';

/**
 * Above the protocol's own message limit (1 MiB, answered with `message_too_large`), so that an
 * oversized message gets that error rather than ws's abrupt 1009 close.
 */
export const MAX_SOCKET_MESSAGE_BYTES = 4 * 1024 * 1024;

/** How long a socket may stay open without starting its session. */
export const START_TIMEOUT_MS = 15_000;

/** The limits the service's config sets on every session, a socket's or a call's. */
export function configuredSessionLimits(config: AppConfig): Partial<SessionLimits> {
  return {
    maxSessionMs: config.maxSessionSeconds * 1000,
    idleTimeoutMs: config.sessionIdleSeconds * 1000,
    controlBurst: config.socketControlBurst,
    controlPerSecond: config.socketControlPerSecond,
    responseBurst: config.conversationResponses.burst,
    responsesPerMinute: config.conversationResponses.perMinute,
  };
}
