import { InitialSchema1763700000000 } from './1763700000000-initial-schema';

/** Every migration, in order. Listed explicitly so the same list works from ts-jest and dist. */
export const MIGRATIONS = [InitialSchema1763700000000];
