// nodejs_compat gives the Worker node:async_hooks; the Worker's generated types
// (worker-configuration.d.ts) do not declare it. Only what src/call-budget.ts uses.
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, work: () => R): R;
    getStore(): T | undefined;
  }
}
