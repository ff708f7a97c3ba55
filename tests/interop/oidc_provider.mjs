// A real authorization server for the auth tests: npm oidc-provider (a certified OpenID
// provider), configured for the client_credentials grant with resource indicators (RFC 8707),
// so an access token is a JWT whose `aud` is the resource the client asked for; the
// `opaque-client` gets opaque tokens, checked by introspection (RFC 7662).
//
// With a second argument, REDIRECT_URI, it also has `mcp-proxy` (secret `mcp-proxy-secret`): an
// authorization-code client redirecting there (plainmcp's authorization server in front of it),
// and its development login and consent pages (any login name), which a test submits headlessly.
//
// Usage: node oidc_provider.mjs PORT [REDIRECT_URI] (here, beside node_modules; tests/auth/ starts it). Every start signs with a new RSA key (a new `kid`):
// restarting on the same port is a key rotation. Prints one JSON line once it listens:
// {"issuer": ..., "kid": ...}.
import { generateKeyPairSync, randomUUID } from "node:crypto";
import Provider from "oidc-provider";

const port = Number(process.argv[2]);
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const kid = randomUUID();
const key = { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
const SCOPES = "mcp:read mcp:admin";

const machine = (id) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ["client_credentials"],
  redirect_uris: [],
  response_types: [],
  scope: SCOPES,
});

const proxyRedirect = process.argv[3];
const proxy = {
  client_id: "mcp-proxy",
  client_secret: "mcp-proxy-secret",
  grant_types: ["authorization_code"],
  redirect_uris: [proxyRedirect],
  response_types: ["code"],
  token_endpoint_auth_method: "client_secret_post",
};

const provider = new Provider(issuer, {
  clients: [
    machine("jwt-client"),
    machine("opaque-client"),
    machine("mcp-server"),
    ...(proxyRedirect ? [proxy] : []),
  ],
  jwks: { keys: [key] },
  scopes: SCOPES.split(" "),
  features: {
    devInteractions: { enabled: Boolean(proxyRedirect) },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => ({
        scope: SCOPES,
        audience: resource,
        accessTokenTTL: 600,
        accessTokenFormat: client.clientId === "opaque-client" ? "opaque" : "jwt",
        jwt: { sign: { alg: "RS256" } },
      }),
    },
  },
});
provider.proxy = false;
const server = provider.listen(port, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ issuer, kid })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
