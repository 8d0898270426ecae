import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../platform/errors/app-error';
import { enginesDocument, modelLanguages, ASR_STREAMING, MODEL_IDS, VOICECHAT } from '../../engines';
import { DEFAULT_LANGUAGE, VOICES, type SessionType } from '../../session-core';

export interface ModelInfo {
  id: string;
  type: SessionType;
  /** Fixed release time of the model (Unix seconds). */
  created: number;
  voices: readonly string[];
  priceMicrosPerMinute: number;
  /** Micro-USD per million text tokens of a conversation's responses; null: the model does no text work. */
  tokenPriceMicros: { input: number; output: number } | null;
  /** Languages (ISO-639-1) the model's configured engine recognises; `auto` is accepted besides. */
  languages: readonly string[];
}

/** The models this service hosts. Prices come from configuration. */
@Injectable()
export class ModelCatalog {
  readonly models: readonly ModelInfo[];

  constructor(config: AppConfig) {
    const engines = enginesDocument(config, MODEL_IDS);
    const models: Array<Omit<ModelInfo, 'languages'>> = [
      {
        id: VOICECHAT,
        type: 'live',
        created: 1767225600,
        voices: VOICES,
        priceMicrosPerMinute: config.priceMicrosPerMinute.voicechat,
        tokenPriceMicros: config.voicechatTokenPriceMicros,
      },
      {
        id: ASR_STREAMING,
        type: 'transcription',
        created: 1767225600,
        voices: [],
        priceMicrosPerMinute: config.priceMicrosPerMinute.asr,
        tokenPriceMicros: null,
      },
    ];
    this.models = models.map((m) => ({ ...m, languages: modelLanguages(engines, m.id) }));
  }

  find(id: string): ModelInfo | undefined {
    return this.models.find((m) => m.id === id);
  }

  get(id: string, param = 'session.model'): ModelInfo {
    const model = this.find(id);
    if (!model) throw new AppError('invalid_parameter', `Unknown model ${JSON.stringify(id)}`, { param });
    return model;
  }

  /**
   * Refuses a language the model's engine does not recognise (400 invalid_parameter naming `param`).
   * `auto` is always accepted; a regional tag (`en-US`) is judged by its language.
   */
  checkLanguage(modelId: string, language: string | null | undefined, param: string): void {
    if (language === null || language === undefined || language === DEFAULT_LANGUAGE) return;
    const languages = this.find(modelId)?.languages ?? [];
    if (languages.includes(language.toLowerCase().split('-')[0])) return;
    throw new AppError(
      'invalid_parameter',
      `Language ${JSON.stringify(language)} is not available for ${modelId}: it recognises ${languages.join(', ') || 'no language'} (or auto)`,
      { param },
    );
  }

  defaultFor(type: SessionType): ModelInfo {
    return this.models.find((m) => m.type === type)!;
  }

  /**
   * Cost of a meter batch: its frames and its text tokens. Every view of usage sums the cost stored
   * with each meter event, so the rounding here happens once per batch and all views agree to the
   * micro-dollar.
   */
  costMicros(modelId: string, frames: number, tokens: { input: number; output: number } | null = null): number {
    const model = this.find(modelId);
    const audio = (frames * (model?.priceMicrosPerMinute ?? 0)) / 750; // 750 frames of 80 ms make a minute
    const perMillion = model?.tokenPriceMicros;
    const text = tokens && perMillion ? (tokens.input * perMillion.input + tokens.output * perMillion.output) / 1e6 : 0;
    return Math.round(audio + text);
  }
}
