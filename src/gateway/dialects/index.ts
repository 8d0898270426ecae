/**
 * The one list of socket dialects: it drives the gateways, the AsyncAPI document and the dialect
 * label of the metrics and logs. A new dialect is its own folder, exporting a Dialect, and one line here.
 */
import type { AsyncApiInputs } from '../../platform/openapi/socket-dialect-doc';
import { CLOSE_REASONS } from '../../modules/sessions';
import { closeOutcome, type CloseCause } from '../../session-core';
import type { Dialect } from '../dialect';
import { FLUX_DIALECT } from './deepgram/flux/flux.dialect';
import { LISTEN_DIALECT } from './deepgram/listen/listen.dialect';
import { LIVE_DIALECT } from './live/live.dialect';
import { REALTIME_DIALECT } from './realtime/realtime.dialect';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each dialect has its own query type
export const DIALECTS: readonly Dialect<any>[] = [LIVE_DIALECT, REALTIME_DIALECT, LISTEN_DIALECT, FLUX_DIALECT];

/** What the AsyncAPI document is built from: the dialects' channels, the close reasons and the close rules. */
export function asyncApiInputs(dialects: readonly Dialect<unknown>[]): AsyncApiInputs {
  return {
    dialects: dialects.flatMap((dialect) => dialect.channels.map((channel) => channel.doc)),
    closeReasons: CLOSE_REASONS,
    closeOutcome: (cause) => closeOutcome(cause as CloseCause),
  };
}

export const ASYNCAPI_INPUTS: AsyncApiInputs = asyncApiInputs(DIALECTS);
