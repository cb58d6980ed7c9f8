// The OAuth routes (AUTH_MODE=oauth), named once: the provider library serves /register and
// /token, our pages serve /authorize and the identity provider's callback.
export const AUTHORIZE_PATH = "/authorize";
export const TOKEN_PATH = "/token";
export const REGISTER_PATH = "/register";
/** Where the identity provider sends the browser back (register this URL with the GitHub app or OIDC client). */
export const SIGN_IN_CALLBACK_PATH = "/oauth/callback";
