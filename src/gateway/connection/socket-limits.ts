/**
 * Above the protocol's own message limit (1 MiB, answered with `message_too_large`), so that an
 * oversized message gets that error rather than ws's abrupt 1009 close.
 */
export const MAX_SOCKET_MESSAGE_BYTES = 4 * 1024 * 1024;

/** How long a socket may stay open without starting its session. */
export const START_TIMEOUT_MS = 15_000;
