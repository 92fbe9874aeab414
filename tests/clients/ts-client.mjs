// ts-client drives `host serve` with a real TypeScript MCP client and prints
// one JSON object on stdout: the negotiated version, the tools listed, and
// run_tool's structuredContent for testtool echo.
//
//   node ts-client.mjs <sdk-legacy|v2-legacy|v2-auto|v2-pin> <host binary>
//
// sdk-legacy: @modelcontextprotocol/sdk 1.32.2 Client (2025-11-25; its
// callTool checks structuredContent against a declared outputSchema).
// v2-*: @modelcontextprotocol/client 2.4.0 with versionNegotiation legacy,
// auto, or {pin: "2026-07-28"}.
import { loadClient, connectHost } from "./sdk.mjs";
const [mode, host] = process.argv.slice(2);
if (!mode || !host) {
  console.error("usage: node ts-client.mjs <mode> <host binary>");
  process.exit(2);
}

const { Client, StdioClientTransport, options } = await loadClient(mode, ["sdk-legacy", "v2-legacy", "v2-auto", "v2-pin"]);
const client = new Client({ name: `ts-${mode}`, version: "0.0.1" }, options);
await connectHost(client, StdioClientTransport, host);
const { tools } = await client.listTools();
const result = await client.callTool({
  name: "run_tool",
  arguments: { tool: "testtool", action: "echo", args: { text: `hello from ${mode}` } },
});
const typo = await client.callTool({
  name: "run_tool",
  arguments: { tool: "testtool", action: "echo", args: { text: "x", max_results: 3 } },
});
// TS_CLIENT_REAL_CALL, when set, is run_tool's arguments for a call on a
// real plugin (e.g. xlsx list-sheets).
let real = null;
if (process.env.TS_CLIENT_REAL_CALL) {
  const r = await client.callTool({ name: "run_tool", arguments: JSON.parse(process.env.TS_CLIENT_REAL_CALL) });
  real = { isError: r.isError ?? false, structuredContent: r.structuredContent ?? null };
}
const version = typeof client.getNegotiatedProtocolVersion === "function" ? client.getNegotiatedProtocolVersion() : undefined;
await client.close();
process.stdout.write(JSON.stringify({
  protocolVersion: version ?? null,
  tools: tools.map((t) => t.name),
  echo: result.structuredContent ?? null,
  echoText: result.content?.[0]?.text ?? null,
  typo: typo.structuredContent ?? null,
  typoIsError: typo.isError ?? false,
  real,
}) + "\n");
