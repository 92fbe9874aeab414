// ts-surface-client drives `host serve --surface chat` and the generic
// `host serve` side by side with the TypeScript SDK client and prints one
// JSON object on stdout: the curated surface's tools, and for each call the
// curated tool's answer beside run_tool's answer for the same action.
//
//   node ts-surface-client.mjs <host binary> <calls.json>
//
// calls.json: [{"tool": "xlsx_list_sheets", "arguments": {...},
//               "run_tool": {"tool": "xlsx", "action": "list-sheets", "args": {...}}}, ...]
// SURFACE_ENV_CURATED and SURFACE_ENV_GENERIC, when set, are JSON objects of
// extra environment for each server (e.g. a separate notes brain each).
import { readFileSync } from "node:fs";

const [host, callsFile] = process.argv.slice(2);
if (!host || !callsFile) {
  console.error("usage: node ts-surface-client.mjs <host binary> <calls.json>");
  process.exit(2);
}
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");

async function connect(args, extraEnv) {
  const client = new Client({ name: "ts-surface", version: "0.0.1" });
  const env = { ...process.env, ...JSON.parse(extraEnv || "{}") };
  await client.connect(new StdioClientTransport({ command: host, args, env, stderr: "inherit" }));
  return client;
}

const answer = (r) => ({ isError: r.isError ?? false, structuredContent: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null });

const curated = await connect(["serve", "--surface", "chat"], process.env.SURFACE_ENV_CURATED);
const generic = await connect(["serve"], process.env.SURFACE_ENV_GENERIC);
const info = curated.getServerVersion();
const { tools } = await curated.listTools();
const results = [];
for (const c of JSON.parse(readFileSync(callsFile, "utf8"))) {
  const got = await curated.callTool({ name: c.tool, arguments: c.arguments });
  const want = await generic.callTool({ name: "run_tool", arguments: c.run_tool });
  results.push({ tool: c.tool, curated: answer(got), generic: answer(want) });
}
await curated.close();
await generic.close();
process.stdout.write(JSON.stringify({
  server: info?.name ?? null,
  tools: tools.map((t) => ({ name: t.name, readOnlyHint: t.annotations?.readOnlyHint ?? null, destructiveHint: t.annotations?.destructiveHint ?? null })),
  results,
}) + "\n");
