import { ContinuumApiError, describeEnd, type LiveSessionEnd, type LiveTurnEvent } from '@continuum/client';

/** What to tell a person when minting the client secret failed. */
export function describeSecretRefusal(error: unknown): string {
  if (error instanceof ContinuumApiError) {
    const retry = error.retryAfterMs ? ` Try again in ${Math.ceil(error.retryAfterMs / 1000)} s.` : '';
    switch (error.code) {
      case 'missing_api_key':
      case 'invalid_api_key':
      case 'key_revoked':
        return `The API key was refused (${error.code}): check it, or create one with the CLI.`;
      case 'permission_denied':
        return 'That is a client secret, not an API key: paste an API key (wk_…).';
      case 'capacity_exhausted':
        return `The service is at capacity: every speech stream is busy.${retry}`;
      case 'insufficient_credit':
        return "The project's credit is used up: no new sessions until it is topped up.";
      case 'concurrency_limit_exceeded':
        return `Too many sessions are open for this project.${retry}`;
      case 'rate_limit_exceeded':
        return `Too many requests with this key.${retry}`;
      case 'shutting_down':
        return 'The service is shutting down: try again shortly.';
      default:
        return `The client secret was refused: ${error.message} (${error.code}, HTTP ${error.status}).`;
    }
  }
  if (error instanceof TypeError) return 'Cannot reach the service: check the connection and try again.';
  return `Could not start: ${error instanceof Error ? error.message : String(error)}`;
}

/** The end of a session as a sentence, with what the figures mean when it ended badly. */
export function describeSessionEnd(end: LiveSessionEnd): { text: string; problem: boolean } {
  if (end.kind === 'connection_lost')
    return { text: `${describeEnd(end)}. The last usage figures are not final.`, problem: true };
  if (end.kind === 'not_opened') return { text: describeEnd(end), problem: true };
  const problem = end.reason === 'connection_lost';
  return { text: `${end.reason}: ${describeEnd(end)}`, problem };
}

/** One line per turn event: what happened, to which item, where on the input timeline. */
export function describeTurn(event: LiveTurnEvent): string {
  switch (event.type) {
    case 'speech_started':
      return `speech started at ${event.start_ms} ms (${event.item_id})`;
    case 'speech_stopped':
      return `speech stopped at ${event.end_ms} ms (${event.item_id})`;
    case 'response_started':
      return `answer started (${event.item_id})`;
    case 'response_done':
      return `answer ${event.interrupted ? 'cut by barge-in' : 'played out'} (${event.item_id})`;
    case 'eager_end_of_turn':
      return `probably done (${event.confidence.toFixed(2)}): answer being prepared (${event.item_id})`;
    case 'turn_resumed':
      return `went on speaking: prepared answer dropped (${event.item_id})`;
    case 'end_of_turn':
      return `turn ended by ${event.trigger} (${event.confidence.toFixed(2)}) (${event.item_id})`;
  }
}
