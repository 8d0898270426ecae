/** The ids a session gives its items and responses: one count each, under the session's own prefix. */
export class ConversationIds {
  private itemCount = 0;
  private responseCount = 0;

  constructor(private readonly prefix: string) {}

  item(): string {
    return `item_${this.prefix}_${++this.itemCount}`;
  }

  response(): string {
    return `resp_${this.prefix}_${++this.responseCount}`;
  }
}
