/**
 * What a response's text work is billed as: the tokens its upstream reported, or, when it reported
 * none (a server without `include_usage`, a response cut before its usage came), the context budget's
 * estimate (context-budget.ts: four ASCII characters a token, any other character one, four a message),
 * which never counts low: input from the request as sent, output from the text and tool calls that came back.
 */
import type { TokenUsage } from '../engine/engine.port';
import { estimateTokens } from './context-budget';

export { requestTokens } from './context-budget';

export function estimatedTokens(inputTokens: number, output: string): TokenUsage {
  return { inputTokens, outputTokens: estimateTokens(output) };
}
