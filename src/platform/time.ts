/** The API speaks integer Unix seconds. */
export const toUnixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
export const toUnixSecondsOrNull = (date: Date | null | undefined): number | null =>
  date ? toUnixSeconds(date) : null;
