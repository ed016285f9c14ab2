// The package's entry points: `require` and `import` give the same functions (one set of
// servers per process), package.json points at them, and the TypeScript declarations
// declare every export (checked with the TypeScript compiler when one is installed, else
// structurally).
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { test } = require("node:test");

const PACKAGE = process.env.MCPR_NODE_PACKAGE || "";
const target = PACKAGE || path.join(__dirname, "..");
const packageDir = path.dirname(require.resolve(PACKAGE ? `${PACKAGE}/package.json` : "../package.json"));
const NAMES = ["mcpStart", "mcpCall", "mcpWaitNotification", "mcpStop"];

test("require gives the four functions, McpError and DEFAULT_TIMEOUT_MS", () => {
  const mcpr = require(target);
  for (const name of NAMES) assert.equal(typeof mcpr[name], "function", name);
  assert.equal(typeof mcpr.McpError, "function");
  assert.ok(mcpr.McpError.prototype instanceof Error);
  assert.equal(mcpr.DEFAULT_TIMEOUT_MS, 30000);
});

test("import gives the same objects, as named exports and as the default export", async () => {
  const mcpr = require(target);
  const specifier = PACKAGE || require("node:url").pathToFileURL(path.join(packageDir, "index.mjs")).href;
  const esm = await import(specifier);
  for (const name of [...NAMES, "McpError", "DEFAULT_TIMEOUT_MS"]) {
    assert.equal(esm[name], mcpr[name], name);
    assert.equal(esm.default[name], mcpr[name], `default.${name}`);
  }
});

test("the functions return promises, also when their arguments are wrong", async () => {
  const mcpr = require(target);
  const p = mcpr.mcpCall(null, "echo");
  assert.ok(p instanceof Promise);
  await assert.rejects(p, TypeError);
  await assert.rejects(mcpr.mcpStop({}), TypeError);
  await assert.rejects(mcpr.mcpWaitNotification({}, "m"), TypeError);
});

test("package.json: main, types, exports (import/require/types), files, no install scripts", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"));
  assert.equal(pkg.main, "index.js");
  assert.equal(pkg.types, "index.d.ts");
  const dot = pkg.exports["."];
  assert.deepEqual(dot.require, { types: "./index.d.ts", default: "./index.js" });
  assert.deepEqual(dot.import, { types: "./index.d.mts", default: "./index.mjs" });
  assert.equal(pkg.bin.mcpr, "bin/mcpr.js");
  assert.equal(pkg.engines.node, ">=18");
  for (const f of ["index.js", "index.mjs", "index.d.ts", "index.d.mts", "lib/api.js", "lib/driver.js", "lib/binary.js", "bin/mcpr.js"]) {
    assert.ok(fs.existsSync(path.join(packageDir, f)), `the package has no ${f}`);
  }
  for (const f of ["index.js", "index.mjs", "index.d.ts", "index.d.mts", "lib", "bin"]) {
    assert.ok(pkg.files.includes(f), `files does not list ${f}`);
  }
  for (const s of ["preinstall", "install", "postinstall"]) assert.ok(!(pkg.scripts && pkg.scripts[s]), s);
  assert.ok(!pkg.dependencies, "no dependencies");
  assert.equal(require(path.join(packageDir, "lib/binary.js")).binaryPath.name, "binaryPath");
});

/** The TypeScript compiler, when this machine has one (the package needs none). */
function typescript() {
  for (const from of [packageDir, process.cwd(), __dirname]) {
    try {
      return require(require.resolve("typescript", { paths: [from] }));
    } catch {}
  }
  return null;
}

test("the TypeScript declarations declare every export", () => {
  const dts = fs.readFileSync(path.join(packageDir, "index.d.ts"), "utf8");
  const mcpr = require(target);
  for (const name of Object.keys(mcpr)) {
    const kind = typeof mcpr[name] === "function" ? (name === "McpError" ? "class" : "function") : "const";
    assert.match(dts, new RegExp(`^export declare ${kind} ${name}\\b`, "m"), `index.d.ts does not declare ${kind} ${name}`);
  }
  for (const type of ["McpServer", "McpStartOptions", "McpCallOptions", "McpCallResult", "McpWaitOptions", "McpStopResult", "McpErrorKind", "McpErrorData"]) {
    assert.match(dts, new RegExp(`^export (interface|type) ${type}\\b`, "m"), type);
  }
  const dmts = fs.readFileSync(path.join(packageDir, "index.d.mts"), "utf8");
  assert.match(dmts, /^export \* from "\.\/index\.js";$/m);
  assert.match(dmts, /^export default mcpr;$/m);
  // Balanced braces and parentheses: a cheap check that the file is whole.
  for (const [open, close] of [["{", "}"], ["(", ")"], ["<", ">"]]) {
    const count = (c) => dts.split(c).length - 1;
    if (open !== "<") assert.equal(count(open), count(close), `${open}${close} unbalanced`);
  }
});

test("the TypeScript declarations compile for import and require, with a use of each function", { skip: typescript() ? false : "no typescript installed" }, () => {
  const ts = typescript();
  // A project with the package in its node_modules, so "mcpr" resolves through exports.
  const dir = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "mcpr-dts-"));
  fs.mkdirSync(path.join(dir, "node_modules"));
  fs.symlinkSync(packageDir, path.join(dir, "node_modules", "mcpr"), "dir");
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "use", private: true }));
  const body = `
    export async function run(): Promise<number> {
      const srv: McpServer = await mcpStart("node", ["server.js"], { env: { A: "1" }, cwd: ".", timeoutMs: 1000 });
      const res = await mcpCall(srv, "echo", { text: "hi" }, { allowError: true, timeoutMs: 10 });
      const text: string | undefined = res.content[0].text;
      const p = await mcpWaitNotification<{ data: { echoed: string } }>(srv, "notifications/message", { match: { "data.echoed": "hi" } });
      const stopped = await mcpStop(srv);
      try { await mcpStart("x"); } catch (e) { if (e instanceof McpError) return e.kind.length + (e.code ?? "").length; }
      return (text ?? "").length + p.data.echoed.length + srv.withheldEnv.length + (stopped.exitStatus ?? "").length + DEFAULT_TIMEOUT_MS;
    }
    // @ts-expect-error: the tool name must be a string
    mcpCall({} as McpServer, 1);
    // @ts-expect-error: match compares scalars
    mcpWaitNotification({} as McpServer, "m", { match: { a: { b: 1 } } });
  `;
  const names = "mcpStart, mcpCall, mcpWaitNotification, mcpStop, McpError, DEFAULT_TIMEOUT_MS";
  fs.writeFileSync(path.join(dir, "use-import.mts"), `import { ${names}, type McpServer } from "mcpr";\nimport mcpr from "mcpr";\nvoid mcpr.mcpStart;\n${body}`);
  fs.writeFileSync(path.join(dir, "use-require.cts"), `import { ${names}, type McpServer } from "mcpr";\nimport mcpr = require("mcpr");\nvoid mcpr.mcpStop;\n${body}`);
  const program = ts.createProgram([path.join(dir, "use-import.mts"), path.join(dir, "use-require.cts")], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2020,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    types: [],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const text = diagnostics
    .map((d) => `${d.file ? path.basename(d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)
    .join("\n");
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(diagnostics.length, 0, text);
});
