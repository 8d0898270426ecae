import { newId } from '../../platform/ids';

/** The one place session ids are made: a secret's session (at issue) and an API key's (at its admission). */
export const newSessionId = (): string => newId('sess');

/** A call's own id (WebRTC, a carrier's stream): what the sideband and hang-up name it by. */
export const newCallId = (): string => newId('rtc');

/**
 * Only ids this service could have made reach the database: a NUL (`sess_%00`) or a lone surrogate
 * fails there as an encoding error, which is not the client's answer (no such session is).
 */
export const isSessionId = (id: string): boolean => /^sess_[0-9A-Za-z]{1,64}$/.test(id);
export const isCallId = (id: string): boolean => /^rtc_[0-9A-Za-z]{1,64}$/.test(id);
