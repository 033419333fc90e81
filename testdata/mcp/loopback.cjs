// Preloaded with `node --require` by coplay's tests: every TCP server the script starts
// listens on 127.0.0.1 only, whatever host it asks for (or none), so a test server is
// never reachable from another machine.
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (args.length > 0 && typeof args[0] === "object" && args[0] !== null && !Array.isArray(args[0])) {
    if (args[0].path === undefined) args[0] = { ...args[0], host: "127.0.0.1" };
  } else if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    args[0] = Number(args[0]);
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
