// The TypeScript SDK v2 client (@modelcontextprotocol/client) logging in to an MCP server with
// its OAuthClientProvider, for tests/authorization/test_client_login.py. Run it with node 22:
//
//   node ts_oauth_login.mjs http://127.0.0.1:PORT/mcp http://127.0.0.1:CB/callback [CALLS]
//
// CALLS: a JSON list of {"tool", "arguments"} (default: whoami), or {"pause": NAME} to stop
// between calls while the test does something (revokes a token). The provider keeps everything
// in memory and registers itself (DCR) with the redirect URL given. Whenever the SDK sends the
// user to log in (the first connection's 401, a call's 403 insufficient_scope step-up), the
// script prints the URL and reads the redirect back, then finishes the login (finishAuth) and
// connects again or repeats the call. One JSON object per line on stdout:
//
//   {"kind": "authorize", "url"}     the authorization URL a browser is to open; the script
//                                    then reads one line on stdin: the query its redirect
//                                    landed with
//   {"kind": "call", "tool", "text"}  each call's text
//   {"kind": "pause", "name", "client", "tokens", "logins"}   at a pause, the same as "done";
//                                    the script then reads one line on stdin,
//                                    {"kind": "continue"}, and goes on with the calls
//   {"kind": "done", "client", "tokens", "logins"}   the registration (client_id, issuer and
//                                    the scope it registered with), the tokens last saved, the
//                                    logins begun
//
// Errors go to stderr with exit code 1; after 60 s without an answer on stdin it gives up.
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';

const [url, redirectUrl] = process.argv.slice(2);
if (!url || !redirectUrl) {
  console.error('usage: node ts_oauth_login.mjs MCP_URL REDIRECT_URL');
  process.exit(2);
}

function emit(record) {
  process.stdout.write(JSON.stringify(record) + '\n');
}

class MemoryProvider {
  constructor() {
    this.client = undefined;
    this.saved = undefined;
    this.verifier = undefined;
    this.discovery = undefined;
    this.states = [];
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: 'the TypeScript SDK',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    const state = randomBytes(16).toString('base64url');
    this.states.push(state);
    return state;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  // The SDK calls it when the server refused what it held (invalid_grant: a refresh token
  // revoked), then authorizes again: the tokens go, the registration stays.
  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
  redirectToAuthorization(authorizationUrl) {
    emit({ kind: 'authorize', url: String(authorizationUrl) });
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

const lines = createInterface({ input: process.stdin });
async function nextLine(seconds) {
  const timer = AbortSignal.timeout(seconds * 1000);
  const [line] = await once(lines, 'line', { signal: timer });
  return line;
}

const calls = JSON.parse(process.argv[4] ?? '[{"tool": "whoami", "arguments": {}}]');

function connected(provider) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: 'plainmcp-interop-ts-oauth', version: '0.0.1' });
  return { transport, client };
}

// After the SDK sent the user to log in (UnauthorizedError): the redirect's query read back,
// its state checked (the SDK leaves that to the application), the code redeemed.
async function finishLogin(provider, transport) {
  const query = new URLSearchParams(await nextLine(60));
  if (query.get('state') !== provider.states.at(-1)) {
    throw new Error(`the redirect's state ${query.get('state')} is not the one sent`);
  }
  await transport.finishAuth(query);
}

async function main() {
  const provider = new MemoryProvider();
  let session = connected(provider);
  try {
    await session.client.connect(session.transport);
    throw new Error('the server let the client in without a login');
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  await finishLogin(provider, session.transport);
  await session.client.close();
  session = connected(provider);
  await session.client.connect(session.transport);
  for (const call of calls) {
    if (call.pause !== undefined) {
      emit({ kind: 'pause', name: call.pause, ...held(provider) });
      const answer = JSON.parse(await nextLine(60));
      if (answer.kind !== 'continue') throw new Error(`not a continue: ${JSON.stringify(answer)}`);
      continue;
    }
    let result;
    try {
      result = await session.client.callTool({ name: call.tool, arguments: call.arguments ?? {} });
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      await finishLogin(provider, session.transport); // a step-up: the same call again
      result = await session.client.callTool({ name: call.tool, arguments: call.arguments ?? {} });
    }
    const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    emit({ kind: 'call', tool: call.tool, text });
  }
  await session.client.close();
  emit({ kind: 'done', ...held(provider) });
}

// What the provider holds: the registration (client_id, issuer and the scope it registered
// with), the tokens last saved, the logins begun.
function held(provider) {
  return {
    client: {
      client_id: provider.client?.client_id,
      issuer: provider.client?.issuer,
      scope: provider.client?.scope ?? null,
    },
    tokens: provider.saved,
    logins: provider.states.length,
  };
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error?.stack ?? String(error));
    process.exit(1);
  },
);
