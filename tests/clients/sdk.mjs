// sdk.mjs loads the TypeScript MCP client a test script runs, by mode:
// sdk-legacy is @modelcontextprotocol/sdk 1.32.2's Client (2025-11-25);
// v2-legacy, v2-auto and v2-pin are @modelcontextprotocol/client 2.4.0 with
// versionNegotiation legacy, auto or {pin: "2026-07-28"}.
const negotiations = { "v2-legacy": "legacy", "v2-auto": "auto", "v2-pin": { pin: "2026-07-28" } };

// loadClient returns the Client and StdioClientTransport classes of mode,
// the client options it takes (options beside versionNegotiation), and
// whether it is the legacy SDK. A mode not in modes exits 2.
export async function loadClient(mode, modes, options = {}) {
  if (!modes.includes(mode)) {
    console.error(`unknown mode ${mode} (want one of ${modes.join(", ")})`);
    process.exit(2);
  }
  if (mode === "sdk-legacy") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    return { Client, StdioClientTransport, options, legacy: true };
  }
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  return { Client, StdioClientTransport, options: { ...options, versionNegotiation: { mode: negotiations[mode] } }, legacy: false };
}

// connectHost starts `host serve` (the host binary), its stderr the
// script's, and connects client to it.
export async function connectHost(client, StdioClientTransport, host) {
  const transport = new StdioClientTransport({ command: host, args: ["serve"], env: { ...process.env }, stderr: "inherit" });
  await client.connect(transport);
  return transport;
}
