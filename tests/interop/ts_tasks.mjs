// What the TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) and the official tasks
// package (@modelcontextprotocol/ext-tasks 0.2.2, installed beside it) do with tasks, against a
// plainmcp server over Streamable HTTP (tests/interop/test_tasks_sdk.py). Run with node 22:
//
//   node ts_tasks.mjs '{"url": "http://127.0.0.1:PORT/mcp", "mode": "legacy", "tool": "report"}'
//
// "mode" is "legacy" (the initialize handshake, 2025-11-25) or "2026-07-28" (pinned, no
// handshake). One JSON object per line on stdout, each {"step", ...}:
//   serverTasks     what the adapter reads of the server: its tasks capability or extension
//   plain           client.callTool({name, arguments}): the SDK's own call
//   capabilities    the result of the server's `capabilities` tool: what the client declared
//   callToolTask    client.callTool with params.task (legacy): what the SDK does with the
//                   CreateTaskResult the server answers
//   raw             legacy: tools/call with params.task through client.request() with the
//                   package's CreateTaskResult schema given explicitly
//   tasksGet        2026-07-28: client.request() of tasks/get (an unknown task's id)
//   extTasks:NAME   createTaskSessionFromClient(...).callTool(NAME) for each of "extTools"
//                   (default: the tool), preferring a task: the package's own call, settled,
//                   and its outcome's result; at 2026-07-28 the package needs a raw dispatch
//                   of the host's (rawDispatch below: one POST per request)
//   error           a step that threw: {step, name, message, code}
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import * as v1 from '@modelcontextprotocol/ext-tasks/core/v1';

const job = JSON.parse(process.argv[2] ?? '{}');
const mode = job.mode ?? 'legacy';
const tool = job.tool ?? 'report';
const info = { name: `plainmcp-interop-ts-tasks-${mode}`, version: '0.0.1' };
const emit = (record) => process.stdout.write(JSON.stringify(record) + '\n');
const described = (step, error) => ({
  step,
  error: { name: error?.name, message: String(error?.message ?? error), code: error?.code },
});

async function step(name, run) {
  try {
    emit({ step: name, ...(await run()) });
  } catch (error) {
    emit(described(name, error));
  }
}

/** The host's raw dispatch for a 2026-07-28 task session: the request as the package framed it
 * (its `_meta` envelope), POSTed with the headers SEP-2243 and SEP-2663 ask for. */
let nextId = 1;
async function rawDispatch(request) {
  const params = request.params ?? {};
  const name = request.method === 'tools/call' ? params.name : params.taskId;
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': mode,
    'mcp-method': request.method,
  };
  if (name !== undefined) headers['mcp-name'] = name;
  const body = JSON.stringify({ jsonrpc: '2.0', id: `raw-${nextId++}`, ...request });
  const response = await fetch(job.url, { method: 'POST', headers, body });
  const text = await response.text();
  const data = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? JSON.parse(text.split('\n').filter((l) => l.startsWith('data:')).at(-1).slice(5))
    : JSON.parse(text);
  return data.error ? { kind: 'error', error: data.error } : { kind: 'result', result: data.result };
}

const client = new Client(info, {
  capabilities: {},
  versionNegotiation: { mode: mode === 'legacy' ? 'legacy' : { pin: mode } },
});
await client.connect(new StreamableHTTPClientTransport(new URL(job.url)));
const capabilities = client.getServerCapabilities() ?? {};
emit({
  step: 'serverTasks',
  era: client.getProtocolEra(),
  tasks: capabilities.tasks ?? null,
  extension: capabilities.extensions?.['io.modelcontextprotocol/tasks'] ?? null,
});

await step('plain', async () => ({ result: await client.callTool({ name: tool, arguments: {} }) }));
await step('capabilities', async () => ({
  result: await client.callTool({ name: 'capabilities', arguments: {} }),
}));

if (mode === 'legacy') {
  await step('callToolTask', async () => ({
    result: await client.callTool({ name: tool, arguments: {}, task: { ttl: 60000 } }),
  }));
  await step('raw', async () => ({
    result: await client.request(
      { method: 'tools/call', params: { name: tool, arguments: {}, task: { ttl: 60000 } } },
      v1.CreateTaskResultSchema,
    ),
  }));
}

if (mode !== 'legacy') {
  await step('tasksGet', async () => ({
    result: await client.request({ method: 'tasks/get', params: { taskId: 'unknown' } }, v1.GetTaskResultSchema),
  }));
}

const options = { endpointId: 'plainmcp-interop' };
if (mode !== 'legacy') {
  options.rawDispatch = rawDispatch;
  options.v2RequestFraming = { protocolVersion: mode, clientInfo: info, clientCapabilities: {} };
}
const session = createTaskSessionFromClient(client, options);
for (const name of job.extTools ?? [tool]) {
  // "prefer": an optional tool is called as a task where the server's era lets the client ask
  await step(`extTasks:${name}`, async () => {
    const execution = await session.callTool(name, {}, { task: { preference: 'prefer' } });
    const { outcome } = await execution.settle();
    return { status: outcome.status, result: resultFromTaskOutcome(outcome) };
  });
}
await session.close();

await client.close();
emit({ step: 'done' });
