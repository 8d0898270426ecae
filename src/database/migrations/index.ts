import { Initial1795239154665 } from './1795239154665-Initial';

/** Applied in order; an applied migration is never edited, only followed by a new one. */
export const MIGRATIONS = [Initial1795239154665];
