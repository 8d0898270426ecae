/** The one home of what a client may configure: rules, the secret's codec, the dialects' views. */
export * from './setting-refusal';
export * from './settings.rules';
export * from './conversation.rules';
export * from './engine-abilities';
export * from './secret-settings.codec';
export * from './realtime.view';
