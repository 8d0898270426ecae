/**
 * `@continuum/client`: the REST API typed from the committed OpenAPI document (openapi-fetch), and live
 * sessions over the socket (`/v1/live/sessions`) with typed events. Runs in browsers and Node; the
 * API-key socket is in `@continuum/client/node`, microphone and playback in `@continuum/client/browser`.
 */
export type { paths } from './rest/openapi.generated.js';
export * from './rest/rest-client.js';
export * from './live/pcm.js';
export * from './live/session-end.js';
export * from './live/live-session.js';
export * from './live/connect.js';
export type * from '../../protocol/live-events.js';
export * from './live/latency.js';
export * from './realtime/conversation.js';
