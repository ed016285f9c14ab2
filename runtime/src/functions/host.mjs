// The function host of mcpr (docs/functions.md). mcpr starts it as
//   node --input-type=module -e <this text> MODULE...
// with absolute module paths. It imports each module, then speaks JSON lines:
//   out: {"ready":true,"functions":{"NAME":"MODULE",...},"manifests":{"MODULE":{...}}}
//        or {"ready":false,"module":"MODULE","error":{"name":..,"message":..}}
//   in:  {"id":N,"function":"NAME","args":{...}}
//   out: {"id":N,"result":VALUE} or {"id":N,"error":{"name":..,"message":..,"kind":..}}
// A function is called with one argument, the object of its named arguments, and may
// return a value or a promise of one. Anything the modules print goes to stderr, so stdout
// carries only the protocol.
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const write = process.stdout.write.bind(process.stdout);
const send = (message) => write(JSON.stringify(message) + "\n");
for (const name of ["log", "info", "debug", "trace", "dir", "table"]) {
  console[name] = (...args) => console.error(...args);
}
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

const describe = (error) => ({
  name: error instanceof Error ? error.name : typeof error,
  message: error instanceof Error ? error.message : String(error),
});

// The functions a module provides: its exported functions; the function members of a
// default export that is an object (CommonJS `module.exports = {...}`) and of its
// `functions` member; `manifest.functions`, when exported, says which of them count.
const functionsOf = (imported) => {
  const found = new Map();
  const take = (object) => {
    if (object === null || typeof object !== "object") return;
    for (const [name, value] of Object.entries(object)) {
      if (typeof value === "function" && name !== "manifest" && !found.has(name)) {
        found.set(name, value);
      }
    }
  };
  for (const [name, value] of Object.entries(imported)) {
    if (name !== "default" && name !== "manifest" && typeof value === "function") {
      found.set(name, value);
    }
  }
  take(imported.default);
  take(imported.default?.functions);
  const manifest = imported.manifest ?? imported.default?.manifest;
  if (Array.isArray(manifest?.functions)) {
    for (const name of [...found.keys()]) {
      if (!manifest.functions.includes(name)) found.delete(name);
    }
  }
  return found;
};

// A module's manifest as plain data (mcpr checks it), or a mark that it is not.
const manifestOf = (imported) => {
  const manifest = imported.manifest ?? imported.default?.manifest;
  if (manifest === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(manifest));
  } catch {
    return { notData: true };
  }
};

const registry = new Map();
const owners = {};
const manifests = {};
for (const module of process.argv.slice(1)) {
  try {
    const imported = await import(pathToFileURL(module).href);
    for (const [name, fn] of functionsOf(imported)) {
      registry.set(name, fn);
      owners[name] = module;
    }
    const manifest = manifestOf(imported);
    if (manifest !== undefined) manifests[module] = manifest;
  } catch (error) {
    send({ ready: false, module, error: describe(error) });
    process.exit(0);
  }
}
send({ ready: true, functions: owners, manifests });

const answer = async (request) => {
  const fn = registry.get(request.function);
  if (typeof fn !== "function") {
    return { id: request.id, error: { name: "Error", message: `no module exports a function “${request.function}”`, kind: "unknown" } };
  }
  let value;
  try {
    value = await fn(request.args ?? {});
  } catch (error) {
    return { id: request.id, error: { ...describe(error), kind: "threw" } };
  }
  let text;
  try {
    text = JSON.stringify(value === undefined ? null : value);
  } catch (error) {
    return { id: request.id, error: { ...describe(error), kind: "not-json" } };
  }
  return { id: request.id, result: JSON.parse(text) };
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let pending = 0;
let closed = false;
lines.on("line", (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  pending += 1;
  answer(request)
    .catch((error) => ({ id: request.id, error: { ...describe(error), kind: "threw" } }))
    .then((reply) => {
      send(reply);
      pending -= 1;
      if (closed && pending === 0) process.exit(0);
    });
});
// mcpr closed stdin: the calls still running answer, then the host ends.
lines.on("close", () => {
  closed = true;
  if (pending === 0) process.exit(0);
});
