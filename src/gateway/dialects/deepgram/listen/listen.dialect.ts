import type { Dialect } from '../../../dialect';
import { DEEPGRAM_HANDSHAKE } from '../shared/deepgram-dialect';
import { LISTEN_ASYNCAPI } from './listen.asyncapi';
import { ListenConnection, listenTransport } from './listen.connection';
import { parseListenFrame } from './listen.protocol';
import { listenConfig, parseListenQuery, type ListenOptions } from './listen.query';

/** `/v1/listen`: Deepgram's live transcription protocol. */
export const LISTEN_DIALECT: Dialect<ListenOptions> = {
  ...DEEPGRAM_HANDSHAKE,
  name: 'listen',
  path: '/v1/listen',
  query: (req) => parseListenQuery(req.url),
  language: (query) => query.language,
  configure: listenConfig,
  connect: ({ ws, query, config, runtime, engines }) =>
    new ListenConnection({
      ...runtime,
      config: config!,
      listen: query,
      // The model's own engine: a Deepgram session never changes model, and Metadata names the engine.
      engine: engines.for(config!.model),
      transport: listenTransport(ws),
    }),
  // Audio is binary: a text frame taken as audio was not understood.
  channels: [
    { doc: LISTEN_ASYNCAPI, accepts: (text) => !['invalid', 'audio'].includes(parseListenFrame(text, false).kind) },
  ],
};
