import { queryParameter, SERVER_HEADERS, subprotocolAfter } from '../../../handshake/credential-places';

/** What Deepgram's two sockets share on their handshake: its credentials, and the request id it names the 101 with. */
export const DEEPGRAM_HANDSHAKE = {
  // Deepgram's browser form: subprotocols `token, <key>` (or `bearer, <key>`), answered with the marker.
  credentials: [SERVER_HEADERS, subprotocolAfter(['token', 'bearer']), queryParameter('token')],
  serves: 'transcription',
  // Deepgram names the request on the 101; here it is the session id (GET /v1/sessions/{id}).
  upgradeHeaders: (sessionId: string) => [`dg-request-id: ${sessionId}`],
} as const;
