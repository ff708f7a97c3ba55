// The TypeScript SDK v2 client (@modelcontextprotocol/client) over Streamable HTTP, for the
// interop tests (tests/interop/test_http_clients.py). Run it with node 22:
//
//   node ts_client.mjs '{"url": "http://127.0.0.1:PORT/mcp", "mode": "legacy",
//                        "calls": [{"id": "add", "tool": "add", "arguments": {"a": 2, "b": 3}}]}'
//
// (the JSON may also come in the TS_CLIENT_JOB environment variable). "mode" is "legacy" (the
// initialize handshake) or a pinned revision such as "2026-07-28" (stateless, no handshake).
// The client connects, lists the tools, calls each tool in order and prints one JSON object per
// line on stdout:
//
//   {"kind": "connected", "protocolVersion", "era", "serverVersion"}
//   {"kind": "tools", "result", "wire"}
//   {"kind": "call", "id", "result", "wire"}     or    {"kind": "call", "id", "error"}
//   {"kind": "done"}
//
// "result" is what the SDK returned to the caller; "wire" is the JSON-RPC result exactly as the
// server sent it (recorded at the transport, before the SDK parses it).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const job = JSON.parse(process.argv[2] ?? process.env.TS_CLIENT_JOB ?? '{}');
if (!job.url) {
  console.error('usage: node ts_client.mjs \'{"url": ..., "mode": ..., "calls": [...]}\'');
  process.exit(2);
}
const mode = job.mode ?? 'legacy';

function emit(record) {
  process.stdout.write(JSON.stringify(record) + '\n');
}

const transport = new StreamableHTTPClientTransport(new URL(job.url));
const client = new Client(
  { name: 'plainmcp-interop-ts-client', version: '0.0.1' },
  { versionNegotiation: { mode: mode === 'legacy' ? 'legacy' : { pin: mode } } },
);

// Record every response the server sends, by request id, as raw JSON-RPC.
const sentMethods = new Map();
const responses = new Map();
await client.connect(transport);
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message && message.id !== undefined && message.method) {
    sentMethods.set(message.id, message.method);
  }
  return send(message, options);
};
const onmessage = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message && message.id !== undefined && !message.method) {
    responses.set(message.id, message);
  }
  return onmessage(message, extra);
};

/** The raw responses to `method` received since `since` (request ids count upward). */
function wireSince(seen, method) {
  const found = [];
  for (const [id, message] of responses) {
    if (!seen.has(id) && sentMethods.get(id) === method) {
      found.push(message.error ? { error: message.error } : message.result);
    }
  }
  for (const id of responses.keys()) seen.add(id);
  return found;
}

function describeError(error) {
  const out = { name: error?.name, message: String(error?.message ?? error) };
  if (error && typeof error === 'object' && 'code' in error) out.code = error.code;
  if (error && typeof error === 'object' && 'data' in error && error.data !== undefined) {
    out.data = error.data;
  }
  return out;
}

const seen = new Set(responses.keys());
emit({
  kind: 'connected',
  protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
  era: client.getProtocolEra() ?? null,
  serverVersion: client.getServerVersion() ?? null,
});

const tools = await client.listTools();
emit({ kind: 'tools', result: tools, wire: wireSince(seen, 'tools/list') });

for (const call of job.calls ?? []) {
  try {
    const result = await client.callTool({ name: call.tool, arguments: call.arguments ?? {} });
    emit({ kind: 'call', id: call.id, result, wire: wireSince(seen, 'tools/call') });
  } catch (error) {
    emit({ kind: 'call', id: call.id, error: describeError(error), wire: wireSince(seen, 'tools/call') });
  }
}

await client.close();
emit({ kind: 'done' });
