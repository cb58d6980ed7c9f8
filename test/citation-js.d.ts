declare module "@citation-js/core";
