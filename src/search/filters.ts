/** SQL conditions on a paper key expression (categories, dates), with their binds in order. */
export type KeyFilters = (key: string) => { clauses: string[]; binds: unknown[] };
