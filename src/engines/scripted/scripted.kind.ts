/** The deterministic test engine as a configurable kind: `{ "kind": "scripted", "maxStreams": 1000 }`. */
import { engineKind } from '../registry/engine-kind';
import { ScriptedEngine } from './scripted.engine';

export const scriptedKind = engineKind({
  kind: 'scripted',
  parse(section) {
    section.allowOnly(['maxStreams', 'languages']);
    return {
      maxStreams: section.has('maxStreams') ? section.int('maxStreams', 8, 1, 100_000) : null,
      languages: section.strings('languages', ['en']),
    };
  },
  // It "hears" loudness, not words: any declared language is as good as another.
  languages: (settings) => settings.languages,
  create(settings, context) {
    return new ScriptedEngine({ maxStreams: settings.maxStreams ?? context.defaultMaxStreams });
  },
});
