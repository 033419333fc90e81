// A client of the official TypeScript MCP SDK (@modelcontextprotocol/sdk) playing a
// world that `coplay serve` serves (cli/serve_ts_test.go runs it). It prints one JSON
// object a line, each a fact the Go test checks; an error fails with exit 1.
//
// Usage: node serve_ts_client.cjs URL HERON_TOKEN FINCH_TOKEN
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ResourceUpdatedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const [url, heronToken, finchToken] = process.argv.slice(2);
const say = (fact) => console.log(JSON.stringify(fact));
const text = (res) => (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

async function join(token, name) {
  const client = new Client({ name, version: "1.0.0" });
  const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function refused(token) {
  try {
    const c = await join(token, "intruder");
    await c.callTool({ name: "send_message", arguments: { to: "Finch", text: "an intruder writes" } });
    return false;
  } catch (e) {
    return String(e.message || e);
  }
}

async function main() {
  const heron = await join(heronToken, "ts-heron");
  const tools = (await heron.listTools()).tools;
  say({ fact: "tools", tools: tools.map((t) => ({ name: t.name, readOnly: !!(t.annotations && t.annotations.readOnlyHint), schema: t.inputSchema })) });
  say({ fact: "status", text: text(await heron.callTool({ name: "status", arguments: {} })) });

  const finch = await join(finchToken, "ts-finch");
  const updated = new Promise((resolve) => {
    finch.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params));
  });
  await finch.subscribeResource({ uri: "coplay://triggers" });

  say({ fact: "no token", error: await refused(undefined) });
  say({ fact: "wrong token", error: await refused(heronToken + "-not") });

  const sent = await heron.callTool({ name: "send_message", arguments: { to: "Finch", text: "hello from TypeScript" } });
  say({ fact: "sent", isError: !!sent.isError, text: text(sent) });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no notifications/resources/updated in 20 s")), 20000));
  say({ fact: "updated", params: await Promise.race([updated, timeout]) });
  const triggers = await finch.readResource({ uri: "coplay://triggers" });
  say({ fact: "triggers", text: triggers.contents[0].text });
  say({ fact: "messages", text: text(await finch.callTool({ name: "messages", arguments: {} })) });
  await heron.close();
  await finch.close();
}

main().then(() => process.exit(0), (e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
