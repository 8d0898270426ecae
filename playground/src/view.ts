/** The page's elements and small rendering helpers (no framework: a handful of nodes). */
const byId = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
};

export const view = {
  apiKey: byId<HTMLInputElement>('api-key'),
  model: byId<HTMLSelectElement>('model'),
  file: byId<HTMLInputElement>('file'),
  drop: byId<HTMLDivElement>('drop'),
  start: byId<HTMLButtonElement>('start'),
  stop: byId<HTMLButtonElement>('stop'),
  status: byId<HTMLParagraphElement>('status'),
  error: byId<HTMLParagraphElement>('error'),
  finals: byId<HTMLOListElement>('finals'),
  partial: byId<HTMLParagraphElement>('partial'),
  reply: byId<HTMLParagraphElement>('reply'),
  replySection: byId<HTMLElement>('reply-section'),
  level: byId<HTMLMeterElement>('level'),
  usage: byId<HTMLElement>('usage'),
  latPartial: byId<HTMLElement>('lat-partial'),
  latFinal: byId<HTMLElement>('lat-final'),
  latAnswer: byId<HTMLElement>('lat-answer'),
  closeReason: byId<HTMLElement>('close-reason'),
  turns: byId<HTMLOListElement>('turns'),
  ask: byId<HTMLFormElement>('ask'),
  askText: byId<HTMLInputElement>('ask-text'),
  tools: byId<HTMLOListElement>('tools'),
  toolsHeading: byId<HTMLElement>('tools-heading'),
};

export function source(): 'microphone' | 'file' {
  const checked = document.querySelector<HTMLInputElement>('input[name="source"]:checked');
  return checked?.value === 'file' ? 'file' : 'microphone';
}

export function showError(text: string | null): void {
  view.error.hidden = text === null;
  view.error.textContent = text ?? '';
}

export function setStatus(text: string): void {
  view.status.textContent = text;
}

export function append(list: HTMLOListElement, text: string): void {
  const item = document.createElement('li');
  item.textContent = text;
  list.append(item);
  list.scrollTop = list.scrollHeight;
}

export function ms(value: number | null): string {
  return value === null ? '–' : `${value} ms`;
}

export function resetSessionView(): void {
  for (const list of [view.finals, view.turns, view.tools]) list.replaceChildren();
  for (const node of [view.partial, view.reply]) node.textContent = '';
  for (const node of [view.usage, view.latPartial, view.latFinal, view.latAnswer, view.closeReason])
    node.textContent = '–';
  view.level.value = 0;
  showError(null);
}
