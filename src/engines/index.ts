/**
 * The engines' entry for the rest of the service: the modules, the gateway and the app import only this.
 * The engine port itself (SpeechEngine, EngineStream, their events, SPEECH_ENGINE) is the session core's.
 */
export { EnginesModule } from './engines.module';
export { CAPACITY_GATE, type CapacityGate, type CapacityVerdict } from './capacity-gate';
export { ENGINE_REGISTRY, EngineRegistry } from './registry/engine-registry';
export { ENGINE_METERS, type EngineMeters } from './registry/instrumented-engine';
export { enginesDocument, modelLanguages } from './registry/engines-config';
export {
  ASR_STREAMING,
  DEFAULT_TRANSCRIPTION_CONFIG,
  MODEL_IDS,
  TRANSCRIPTION_MODEL,
  VOICECHAT,
} from './registry/served-models';
