// The recorded and hand-made fixtures under test/fixtures/, read inside workerd (which has no file
// system) through the fake upstream's /_fixtures/ route. Provenance: test/fixtures/SOURCES.md.
const FIXTURES = "http://fake.upstream/_fixtures";

/** A fixture file as the fake upstream serves it (status 404 when there is no such file). */
export function fixtureResponse(relativePath: string): Promise<Response> {
  return fetch(`${FIXTURES}/${relativePath}`);
}

/** A fixture file's text; throws when it does not exist, so a renamed fixture fails loudly. */
export async function fixtureText(relativePath: string): Promise<string> {
  const response = await fixtureResponse(relativePath);
  if (!response.ok) throw new Error(`no fixture ${relativePath} (${response.status})`);
  return response.text();
}

/** A fixture file's bytes; throws when it does not exist. */
export async function fixtureBytes(relativePath: string): Promise<Uint8Array> {
  const response = await fixtureResponse(relativePath);
  if (!response.ok) throw new Error(`no fixture ${relativePath} (${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}
