/** Fixed by the specification: a client secret lives 60 s unless asked otherwise, at most 600 s. */
export const CLIENT_SECRET_TTL = { defaultSeconds: 60, minSeconds: 1, maxSeconds: 600 } as const;
