/**
 * The sockets the AsyncAPI document describes, one entry per dialect: a new dialect adds its own
 * `<dialect>.asyncapi.ts` beside its parser and renderer, and one line here.
 */
import type { SocketDialectDoc } from '../../platform/openapi/socket-dialect-doc';
import { FLUX_ASYNCAPI } from './deepgram/flux/flux.asyncapi';
import { LISTEN_ASYNCAPI } from './deepgram/listen/listen.asyncapi';
import { LIVE_ASYNCAPI } from './live/live.asyncapi';
import { REALTIME_ASYNCAPI } from './realtime/realtime.asyncapi';

export const SOCKET_DIALECT_DOCS: readonly SocketDialectDoc[] = [
  LIVE_ASYNCAPI,
  REALTIME_ASYNCAPI,
  LISTEN_ASYNCAPI,
  FLUX_ASYNCAPI,
];
