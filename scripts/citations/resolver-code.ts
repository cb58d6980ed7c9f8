// What the reference benches run offline against a mirror file: the Worker's own resolver and config.
export { referenceInput, resolveReference } from "../../src/sources/citations/resolve";
export { loadConfig } from "../../src/config";
