import { newId } from '../../platform/ids';

/** The one place session ids are made: a secret's session (at issue) and an API key's (at its admission). */
export const newSessionId = (): string => newId('sess');
