import { Conversation } from './conversation';

describe('Conversation', () => {
  it('sends the system prompt and the last messages, merging a role repeated by a failed turn', () => {
    const conversation = new Conversation('Be brief.', 3);
    let answer = 'Hel';
    conversation.addUser('hello');
    conversation.addAssistant(() => answer);
    answer = 'Hello there.';
    conversation.addUser('what time is it');
    conversation.addAssistant(() => ''); // failed before any speech
    conversation.addUser('and the date');
    expect(conversation.messages()).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hello there.' },
      { role: 'user', content: 'what time is it\nand the date' },
    ]);
  });

  it('starts the window with a user message, and always sends the question', () => {
    const conversation = new Conversation('', 2);
    conversation.addUser('one');
    conversation.addAssistant(() => 'first');
    conversation.addUser('two');
    conversation.addAssistant(() => 'second');
    conversation.addUser('three');
    // The last two would start with an assistant message: it is dropped.
    expect(conversation.messages()).toEqual([{ role: 'user', content: 'three' }]);
    expect(new Conversation('', 1).messages()).toEqual([]);
  });
});
