// Modules without their own types, as the tests use them.
declare module "@citation-js/core";
// Vite's ?raw imports: the file's text.
declare module "*?raw" {
  const text: string;
  export default text;
}
