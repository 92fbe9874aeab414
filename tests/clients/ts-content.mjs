// ts-content drives `host serve` with a real TypeScript MCP client and
// prints one JSON object on stdout: the server's capabilities, the tools,
// the prompts and resources the plugins contribute, one prompt rendered
// and three resources read (the notes schema, its index, and a page
// written first through run_tool).
//
//   node ts-content.mjs <sdk-legacy|v2-legacy|v2-auto> <host binary | http://…/mcp URL>
//
// Given a URL it connects over Streamable HTTP to a `host serve --http`
// the test started, instead of starting `host serve` on stdio.
import { loadClient, connectHost } from "./sdk.mjs";
const [mode, host] = process.argv.slice(2);
if (!mode || !host) {
  console.error("usage: node ts-content.mjs <mode> <host binary | URL>");
  process.exit(2);
}

const { Client, StdioClientTransport, options } = await loadClient(mode, ["sdk-legacy", "v2-legacy", "v2-auto"]);
const client = new Client({ name: `ts-${mode}`, version: "0.0.1" }, options);
if (/^https?:/.test(host)) {
  const { StreamableHTTPClientTransport } = mode === "sdk-legacy"
    ? await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
    : await import("@modelcontextprotocol/client");
  await client.connect(new StreamableHTTPClientTransport(new URL(host)));
} else {
  await connectHost(client, StdioClientTransport, host);
}
const caps = client.getServerCapabilities() ?? {};
const { tools } = await client.listTools();
const { prompts } = await client.listPrompts();
const prompt = await client.getPrompt({ name: "notes/ingest", arguments: { source: "queues.md" } });
const { resources } = await client.listResources();
const { resourceTemplates } = await client.listResourceTemplates();
const write = await client.callTool({
  name: "run_tool",
  arguments: { tool: "notes", action: "write-page", args: { path: "wiki/concepts/Queues.md", mode: "create",
    content: `Queues decouple producers from consumers (${mode}).`, frontmatter: { type: "concept" } } },
});
const text = async (uri) => {
  const r = await client.readResource({ uri });
  return { uri: r.contents[0].uri, mimeType: r.contents[0].mimeType ?? null, text: r.contents[0].text };
};
const schema = await text("notes://schema");
const index = await text("notes://index");
const page = await text("notes://page/wiki/concepts/Queues.md");
let missing = null;
try {
  await client.readResource({ uri: "notes://page/wiki/concepts/Nowhere.md" });
} catch (e) {
  missing = { code: e.code ?? null, message: String(e.message) };
}
const version = typeof client.getNegotiatedProtocolVersion === "function" ? client.getNegotiatedProtocolVersion() : undefined;
await client.close();
process.stdout.write(JSON.stringify({
  protocolVersion: version ?? null,
  capabilities: { prompts: caps.prompts ?? null, resources: caps.resources ?? null },
  tools: tools.map((t) => t.name),
  prompts: prompts.map((p) => ({ name: p.name, arguments: (p.arguments ?? []).map((a) => a.name) })),
  promptText: prompt.messages.map((m) => m.content.text).join("\n"),
  resources: resources.map((r) => r.uri),
  templates: resourceTemplates.map((r) => r.uriTemplate),
  writeIsError: write.isError ?? false,
  schema, index, page, missing,
}) + "\n");
