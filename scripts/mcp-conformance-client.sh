#!/bin/bash
# The MCP conformance suite's client (docs/PROTOCOL.md, "A server's questions"): coplay run
# --headless with a scripted model that calls the tool each scenario expects, --approve all.
# scripts/mcp-conformance.sh runs every client scenario with it; one by hand:
#   COPLAY=./coplay npx @modelcontextprotocol/conformance@0.1.16 client \
#     --command scripts/mcp-conformance-client.sh --scenario auth/metadata-default
# The suite needs Node 22 or later (fs.globSync).
url="$1"
d=$(mktemp -d)
# Each scenario is a new server: its OAuth grant is kept in a config directory of its
# own (a 0600 file), never the person's keyring or config.
export XDG_CONFIG_HOME="$d/config" COPLAY_MCP_TOKENS=file
call=""
case "$MCP_CONFORMANCE_SCENARIO" in
  tools_call) call='{"tool":"add_numbers","args":{"a":5,"b":3}}' ;;
  elicitation-sep1034-client-defaults) call='{"tool":"test_client_elicitation_defaults","args":{}}' ;;
  sse-retry) call='{"tool":"test_reconnection","args":{}}' ;;
  auth/*) call='{"tool":"test-tool","args":{}}' ;;
esac
if [ -n "$call" ]; then
  steps='[{"text":"calling","calls":['"$call"']},{"text":"done"}]'
else
  steps='[{"text":"done"}]'
fi
echo '{"name":"conformance","model":"scripted","steps":'"$steps"'}' > "$d/c.json"
export BROWSER="curl -sSL -o /dev/null"
extra=()
case "$MCP_CONFORMANCE_SCENARIO" in auth/basic-cimd) extra=(--mcp-client-metadata https://conformance-test.local/client-metadata.json) ;; esac
if [ -n "$MCP_CONFORMANCE_CONTEXT" ]; then
  id=$(echo "$MCP_CONFORMANCE_CONTEXT" | python3 -c "import json,sys; print(json.load(sys.stdin).get(\"client_id\",\"\"))")
  sec=$(echo "$MCP_CONFORMANCE_CONTEXT" | python3 -c "import json,sys; print(json.load(sys.stdin).get(\"client_secret\",\"\"))")
  if [ -n "$id" ]; then export CONF_SECRET="$sec"; extra+=(--mcp-client-id "$id" --mcp-client-secret-env CONF_SECRET); fi
  idp=$(echo "$MCP_CONFORMANCE_CONTEXT" | python3 -c "import json,sys; print(json.load(sys.stdin).get(\"idp_issuer\",\"\"))")
  if [ -n "$idp" ]; then
    # Enterprise-managed authorization (SEP-990): the IdP's ID token from the context.
    export CONF_ID_TOKEN=$(echo "$MCP_CONFORMANCE_CONTEXT" | python3 -c "import json,sys; print(json.load(sys.stdin).get(\"idp_id_token\",\"\"))")
    idp_client=$(echo "$MCP_CONFORMANCE_CONTEXT" | python3 -c "import json,sys; print(json.load(sys.stdin).get(\"idp_client_id\",\"\"))")
    extra+=(--mcp-idp-issuer "$idp" --mcp-idp-client-id "$idp_client" --mcp-idp-token-env CONF_ID_TOKEN)
  fi
fi
"${COPLAY:-coplay}" run --headless --data "$d/coplay.db" --game mcp --mcp "$url" --brain "script:$d/c.json" --approve all --steps 2 "${extra[@]}" < /dev/null
rc=$?
rm -rf "$d"
exit $rc
