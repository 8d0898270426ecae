import { parseOpenAiFields } from './openai-request';

const form = (entries: Array<[string, string]>) => {
  const fields = new Map<string, string[]>();
  for (const [name, value] of entries) fields.set(name, [...(fields.get(name) ?? []), value]);
  return fields;
};

describe('parseOpenAiFields', () => {
  it('reads what the openai SDK sends, defaults included', () => {
    expect(parseOpenAiFields(form([['model', 'whisper-1']]))).toEqual({
      model: 'whisper-1',
      language: null,
      responseFormat: 'json',
      granularities: [],
      stream: false,
      prompt: null,
    });
    expect(
      parseOpenAiFields(
        form([
          ['model', 'whisper-1'],
          ['response_format', 'verbose_json'],
          ['timestamp_granularities[]', 'word'],
          ['timestamp_granularities[]', 'segment'],
          ['language', 'en'],
          ['prompt', 'kitchen lights'],
          ['temperature', '0.2'],
        ]),
      ),
    ).toMatchObject({
      responseFormat: 'verbose_json',
      granularities: ['word', 'segment'],
      language: 'en',
      prompt: 'kitchen lights',
    });
  });

  it("takes LiveKit's languages[] context hint as the language", () => {
    expect(parseOpenAiFields(form([['languages[]', 'en']])).language).toBe('en');
  });

  it.each([
    [[['response_format', 'xml']], 'response_format'],
    [[['timestamp_granularities[]', 'word']], 'timestamp_granularities[]'],
    [
      [
        ['response_format', 'verbose_json'],
        ['timestamp_granularities[]', 'line'],
      ],
      'timestamp_granularities[]',
    ],
    [[['stream', 'yes']], 'stream'],
    [
      [
        ['stream', 'true'],
        ['response_format', 'srt'],
      ],
      'stream',
    ],
    [[['temperature', '3']], 'temperature'],
    [[['language', 'english!']], 'language'],
    [
      [
        ['model', 'a'],
        ['model', 'b'],
      ],
      'model',
    ],
    [[['mystery', '1']], 'mystery'],
  ] as Array<[Array<[string, string]>, string]>)('refuses %j naming %s', (entries, param) => {
    expect(() => parseOpenAiFields(form(entries))).toThrow(
      expect.objectContaining({ code: 'invalid_parameter', param }),
    );
  });
});
