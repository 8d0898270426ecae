import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { microsToUsd } from '../../common/money';
import { FRAME_MS, SAMPLE_RATE, SPEECH_ENGINE, SpeechEngine } from '../../engines/engine.types';
import { ModelDto, ModelListDto } from './dto/model.dto';
import { ModelCatalog, ModelInfo } from './model-catalog';

@Injectable()
export class ModelsService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly config: AppConfig,
    @Inject(SPEECH_ENGINE) private readonly engine: SpeechEngine,
  ) {}

  list(): ModelListDto {
    const { inUse, max } = this.engine.capacity();
    const capacity = { streams_in_use: inUse, streams_max: max };
    return { object: 'list', data: this.catalog.models.map((m) => this.toDto(m, capacity)) };
  }

  private toDto(model: ModelInfo, capacity: ModelDto['capacity']): ModelDto {
    return {
      id: model.id,
      object: 'model',
      type: model.type,
      created: model.created,
      owned_by: 'continuum',
      audio: { format: 'pcm16', sample_rate: SAMPLE_RATE, frame_ms: FRAME_MS, output_encodings: ['base64', 'binary'] },
      voices: [...model.voices],
      max_session_seconds: this.config.maxSessionSeconds,
      price: { usd_per_minute: microsToUsd(model.priceMicrosPerMinute) },
      capacity,
    };
  }
}
