import { Initial1795239154665 } from './1795239154665-Initial';
import { SessionAdmission1795241750846 } from './1795241750846-SessionAdmission';

/** Applied in order; an applied migration is never edited, only followed by a new one. */
export const MIGRATIONS = [Initial1795239154665, SessionAdmission1795241750846];
