// What bench:hallmark runs offline: the Worker's own bibliography check and config.
export { checkBibliography } from "../../src/sources/citations/check-bibliography";
export { loadConfig } from "../../src/config";
