import { VOICECHAT } from '../../engines';
import { AppError } from '../../platform/errors/app-error';
import type { Dialect } from '../dialect';
import { SERVER_HEADERS } from '../handshake/credential-places';
import { REALTIME_DIALECT } from '../dialects/realtime/realtime.dialect';
import { checkRealtimeQuery, type RealtimeQuery } from '../dialects/realtime/realtime.query';

/**
 * A call is admitted as the Realtime conversation socket is (REALTIME_DIALECT's configuration), with
 * its credential in the Authorization header only. `?model=` (the older `POST /v1/realtime?model=…`)
 * names the conversation model; without it the default one serves, and session.update names it.
 */
export function callsAdmission(aliases: ReadonlyMap<string, string>): Dialect<RealtimeQuery> {
  return {
    ...REALTIME_DIALECT,
    name: 'webrtc',
    path: '/v1/realtime/calls',
    credentials: [SERVER_HEADERS],
    query: (req, context) => {
      const asked = new URL(req.url ?? '/', 'http://localhost').searchParams.get('model');
      if (asked === null) return { type: 'live', model: VOICECHAT, aliases };
      const query = checkRealtimeQuery(`/?model=${encodeURIComponent(asked)}`, context);
      if (query.type === 'live') return query;
      throw new AppError(
        'invalid_parameter',
        `A call is a conversation: the model is ${VOICECHAT} (or an alias of it)`,
        {
          param: 'model',
        },
      );
    },
  };
}
