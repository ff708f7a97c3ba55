// The TypeScript SDK v2 client (@modelcontextprotocol/client) over stdio at a pinned revision,
// hearing tool list changes the SDK's own way (ClientOptions.listChanged: on a 2026-07-28
// connection it opens a subscriptions/listen stream, and on every notification it lists the
// tools again), for tests/cli/test_dev_listen.py. Run it with node 22:
//
//   node ts_stdio_listen.mjs '{"command": "python", "args": [...], "cwd": "/x", "mode": "2026-07-28"}'
//
// It prints one JSON object per line on stdout:
//
//   {"kind": "connected", "protocolVersion", "era", "listening"}   (listening: the filter the
//                                                                  server granted, or null)
//   {"kind": "tools", "tools": {name: inputSchema.properties}}      after connecting, on "list"
//   {"kind": "changed", "tools": {...}} or {"kind": "changed", "error"}  each notification
//   {"kind": "call", "text"} or {"kind": "call", "error"}
//   {"kind": "done"}
//
// and takes commands, one JSON object per line on stdin: {"list": true},
// {"call": NAME, "arguments": {...}}; the end of stdin closes the client.
import { createInterface } from 'node:readline';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const job = JSON.parse(process.argv[2] ?? '{}');
const emit = (record) => process.stdout.write(JSON.stringify(record) + '\n');

const shown = (tools) =>
  Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema?.properties ?? {}]));

function describeError(error) {
  return { message: String(error?.message ?? error), code: error?.code };
}

const client = new Client(
  { name: 'plainmcp-interop-ts-stdio', version: '0.0.1' },
  {
    versionNegotiation: { mode: { pin: job.mode ?? '2026-07-28' } },
    listChanged: {
      tools: {
        debounceMs: 0, // one list per notification: the test counts them
        onChanged: (error, tools) =>
          emit(error ? { kind: 'changed', error: describeError(error) } : { kind: 'changed', tools: shown(tools) }),
      },
    },
  },
);
const transport = new StdioClientTransport({
  command: job.command,
  args: job.args ?? [],
  cwd: job.cwd,
  env: { ...process.env },
  stderr: 'inherit',
});
await client.connect(transport);
emit({
  kind: 'connected',
  protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
  era: client.getProtocolEra() ?? null,
  listening: client.autoOpenedSubscription?.honoredFilter ?? null,
});
emit({ kind: 'tools', tools: shown((await client.listTools()).tools) });

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  if (command.list) {
    emit({ kind: 'tools', tools: shown((await client.listTools()).tools) });
  } else if (command.call) {
    try {
      const result = await client.callTool({ name: command.call, arguments: command.arguments ?? {} });
      emit({ kind: 'call', text: result.content.map((block) => block.text ?? '').join('') });
    } catch (error) {
      emit({ kind: 'call', error: describeError(error) });
    }
  }
}
await client.close();
emit({ kind: 'done' });
