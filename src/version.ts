export const SERVER_NAME = "papers-mcp";
export const SERVER_VERSION = "0.1.0";
