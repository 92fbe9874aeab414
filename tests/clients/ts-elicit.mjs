// ts-elicit drives `host serve` with a real TypeScript MCP client that
// declares the elicitation capability and answers every elicitation/create
// with one action, then prints one JSON object on stdout: each call's
// structuredContent and isError, and the elicitation messages it was shown.
//
//   node ts-elicit.mjs <sdk-legacy|v2-legacy|v2-pin> <accept|decline|cancel> <host binary>
//
// v2-pin speaks 2026-07-28, where the question comes back as an
// input_required result that the client's multi-round-trip driver answers
// with the same handler before retrying the call.
//
// TS_ELICIT_CALLS is a JSON array of tools/call params ({name, arguments})
// to make in order.
import { loadClient, connectHost } from "./sdk.mjs";
const [mode, answer, host] = process.argv.slice(2);
if (!mode || !answer || !host) {
  console.error("usage: node ts-elicit.mjs <mode> <accept|decline|cancel> <host binary>");
  process.exit(2);
}

const asked = [];
const handler = async (request) => {
  asked.push({ message: request.params.message, mode: request.params.mode ?? null });
  return answer === "accept" ? { action: "accept", content: {} } : { action: answer };
};
const { Client, StdioClientTransport, options, legacy } = await loadClient(mode, ["sdk-legacy", "v2-legacy", "v2-pin"],
  { capabilities: { elicitation: { form: {} } } });
const client = new Client({ name: `ts-elicit-${mode}`, version: "0.0.1" }, options);
if (legacy) {
  const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  client.setRequestHandler(ElicitRequestSchema, handler);
} else {
  client.setRequestHandler("elicitation/create", handler);
}
await connectHost(client, StdioClientTransport, host);
const results = [];
for (const call of JSON.parse(process.env.TS_ELICIT_CALLS ?? "[]")) {
  const r = await client.callTool(call);
  results.push({ isError: r.isError ?? false, structuredContent: r.structuredContent ?? null });
}
await client.close();
process.stdout.write(JSON.stringify({ results, asked }) + "\n");
