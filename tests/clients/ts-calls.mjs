// ts-calls starts the MCP server an install-client entry names, as the
// client would (its command and args, this script's environment and
// working folder), connects a real TypeScript MCP client to it over stdio
// and runs run_tool once per call given, in order. It prints one JSON
// object on stdout: the tools listed and each call's result.
//
//   node ts-calls.mjs <mode> '<entry JSON: {"command": …, "args": […]}>' '<calls JSON: [{"tool", "action", "args"}, …]>'
import { loadClient } from "./sdk.mjs";
const [mode, entryJSON, callsJSON] = process.argv.slice(2);
if (!mode || !entryJSON || !callsJSON) {
  console.error("usage: node ts-calls.mjs <mode> <entry JSON> <calls JSON>");
  process.exit(2);
}
const entry = JSON.parse(entryJSON);
const { Client, StdioClientTransport, options } = await loadClient(mode, ["sdk-legacy", "v2-legacy", "v2-auto"]);
const client = new Client({ name: `ts-calls-${mode}`, version: "0.0.1" }, options);
await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args ?? [], env: { ...process.env },
  cwd: process.cwd(), stderr: "inherit" }));
const { tools } = await client.listTools();
const results = [];
for (const call of JSON.parse(callsJSON)) {
  const r = await client.callTool({ name: "run_tool", arguments: call });
  results.push({ isError: r.isError ?? false, structuredContent: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null });
}
await client.close();
process.stdout.write(JSON.stringify({ tools: tools.map((t) => t.name), results }) + "\n");
