// The slice of D1's API that the src/ modules the scripts import name in their types (the Worker's
// full declarations are in worker-configuration.d.ts, which does not mix with Node's). d1-node.ts
// implements it over node:sqlite.
declare global {
  interface D1Result<T = Record<string, unknown>> {
    results: T[];
    success?: boolean;
  }
  interface D1PreparedStatement {
    bind(...values: unknown[]): D1PreparedStatement;
    all<T = Record<string, unknown>>(): Promise<D1Result<T>>;
    first<T = Record<string, unknown>>(column?: string): Promise<T | null>;
    raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
    raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
    run(): Promise<D1Result>;
  }
  interface D1Database {
    prepare(query: string): D1PreparedStatement;
    batch<T = Record<string, unknown>>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
  }
}
export {};
