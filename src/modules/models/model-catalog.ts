import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AppError } from '../../common/errors/app-error';
import type { SessionType } from '../sessions/entities/session.entity';

export const VOICECHAT = 'vendor-voicechat';
export const ASR_STREAMING = 'vendor-asr-streaming';
export const VOICES = ['aria'] as const;
/** Every model this service serves; the engines document must name an engine for each. */
export const MODEL_IDS: readonly string[] = [VOICECHAT, ASR_STREAMING];

export interface ModelInfo {
  id: string;
  type: SessionType;
  /** Fixed release time of the model (Unix seconds). */
  created: number;
  voices: readonly string[];
  priceMicrosPerMinute: number;
}

/** The models this service hosts. Prices come from configuration. */
@Injectable()
export class ModelCatalog {
  readonly models: readonly ModelInfo[];

  constructor(config: AppConfig) {
    this.models = [
      {
        id: VOICECHAT,
        type: 'live',
        created: 1767225600,
        voices: VOICES,
        priceMicrosPerMinute: config.priceMicrosPerMinute.voicechat,
      },
      {
        id: ASR_STREAMING,
        type: 'transcription',
        created: 1767225600,
        voices: [],
        priceMicrosPerMinute: config.priceMicrosPerMinute.asr,
      },
    ];
  }

  find(id: string): ModelInfo | undefined {
    return this.models.find((m) => m.id === id);
  }

  get(id: string, param = 'session.model'): ModelInfo {
    const model = this.find(id);
    if (!model) throw new AppError('invalid_parameter', `Unknown model ${JSON.stringify(id)}`, { param });
    return model;
  }

  defaultFor(type: SessionType): ModelInfo {
    return this.models.find((m) => m.type === type)!;
  }

  /**
   * Cost of a batch of frames. Every view of usage sums the cost stored with each meter event, so the
   * rounding here happens once per batch and all views agree to the micro-dollar.
   */
  costMicros(modelId: string, frames: number): number {
    const perMinute = this.find(modelId)?.priceMicrosPerMinute ?? 0;
    return Math.round((frames * perMinute) / 750); // 750 frames of 80 ms make a minute
  }
}
