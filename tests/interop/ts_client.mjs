// The TypeScript SDK v2 client (@modelcontextprotocol/client) over Streamable HTTP, for the
// interop tests (tests/interop/test_http_clients.py, tests/e2e/test_scale_out_ts.py). Run it
// with node 22:
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
//
// Optional, per job:
//   "elicitation": {"action": "accept", "content": {...}}  declares the capability and answers
//       every elicitation/create with it (each request's message is recorded, see below);
//   "sampling": {"model": "m", "prefix": "echo "}  declares the capability and answers every
//       sampling/createMessage with prefix + the text of the request's last message;
//   a call's "progress": true  asks for progress; the call's record gets "progress" (every
//       notification as [progress, total, message], in order).
// A call's record gets "asked" when the server asked the client during it: the elicitation
// messages and sampled texts, in order.
// {"sessions": [job, job, ...]} runs several jobs at once, one session each; every record then
// carries "session" (the job's index) and one {"kind": "done"} ends the output.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const job = JSON.parse(process.argv[2] ?? process.env.TS_CLIENT_JOB ?? '{}');
const jobs = job.sessions ?? [job];
if (!jobs.length || !jobs.every((one) => one.url)) {
  console.error('usage: node ts_client.mjs \'{"url": ..., "mode": ..., "calls": [...]}\'');
  process.exit(2);
}

function emitter(session) {
  return (record) => {
    const tagged = session === undefined ? record : { ...record, session };
    process.stdout.write(JSON.stringify(tagged) + '\n');
  };
}

function describeError(error) {
  const out = { name: error?.name, message: String(error?.message ?? error) };
  if (error && typeof error === 'object' && 'code' in error) out.code = error.code;
  if (error && typeof error === 'object' && 'data' in error && error.data !== undefined) {
    out.data = error.data;
  }
  return out;
}

function capabilitiesOf(one) {
  const capabilities = {};
  if (one.elicitation) capabilities.elicitation = { form: {} };
  if (one.sampling) capabilities.sampling = {};
  return capabilities;
}

function textOf(content) {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((block) => (block?.type === 'text' ? block.text : '')).join('');
}

async function runSession(job, emit) {
  const mode = job.mode ?? 'legacy';
  let asked = [];
  const transport = new StreamableHTTPClientTransport(new URL(job.url));
  const client = new Client(
    { name: 'plainmcp-interop-ts-client', version: '0.0.1' },
    {
      capabilities: capabilitiesOf(job),
      versionNegotiation: { mode: mode === 'legacy' ? 'legacy' : { pin: mode } },
    },
  );
  if (job.elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push({ elicitation: request.params.message });
      return job.elicitation;
    });
  }
  if (job.sampling) {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const text = textOf(request.params.messages.at(-1)?.content);
      asked.push({ sampling: text });
      return {
        model: job.sampling.model,
        role: 'assistant',
        content: { type: 'text', text: (job.sampling.prefix ?? '') + text },
        stopReason: 'endTurn',
      };
    });
  }

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
    const progress = [];
    asked = [];
    const onprogress = (p) => progress.push([p.progress, p.total ?? null, p.message ?? null]);
    const extras = () => ({
      ...(call.progress ? { progress } : {}),
      ...(asked.length ? { asked } : {}),
    });
    try {
      const result = await client.callTool(
        { name: call.tool, arguments: call.arguments ?? {} },
        call.progress ? { onprogress } : undefined,
      );
      emit({ kind: 'call', id: call.id, result, wire: wireSince(seen, 'tools/call'), ...extras() });
    } catch (error) {
      const wire = wireSince(seen, 'tools/call');
      emit({ kind: 'call', id: call.id, error: describeError(error), wire, ...extras() });
    }
  }

  await client.close();
}

if (job.sessions) {
  await Promise.all(jobs.map((one, index) => runSession(one, emitter(index))));
} else {
  await runSession(job, emitter(undefined));
}
emitter(undefined)({ kind: 'done' });
