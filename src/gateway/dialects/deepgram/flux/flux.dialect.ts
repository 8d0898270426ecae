import type { Dialect } from '../../../dialect';
import { listenTransport } from '../listen/listen.connection';
import { DEEPGRAM_HANDSHAKE } from '../shared/deepgram-dialect';
import { FLUX_ASYNCAPI } from './flux.asyncapi';
import { FluxConnection } from './flux.connection';
import { parseFluxFrame } from './flux.protocol';
import { fluxConfig, parseFluxQuery, type FluxOptions } from './flux.query';

/** `/v2/listen`: Deepgram Flux's turn-taking transcription; the credentials of `/v1/listen`, its own query. */
export const FLUX_DIALECT: Dialect<FluxOptions> = {
  ...DEEPGRAM_HANDSHAKE,
  name: 'flux',
  path: '/v2/listen',
  query: (req) => parseFluxQuery(req.url),
  configure: fluxConfig,
  connect: ({ ws, query, config, runtime, engines }) =>
    new FluxConnection({
      ...runtime,
      config: config!,
      flux: query,
      engine: engines.for(config!.model),
      transport: listenTransport(ws),
    }),
  channels: [
    {
      doc: FLUX_ASYNCAPI,
      accepts: (text) => !['invalid', 'configure_invalid', 'audio'].includes(parseFluxFrame(text, false).kind),
    },
  ],
};
