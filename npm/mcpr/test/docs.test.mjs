// docs/node.md's first test runs as printed: its code block, in a project of its own with
// the package in node_modules and the Node test server as server.js, passes `node --test`.
// (The page is found next to the repository's package, or through MCPR_NODE_DOCS.)
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { NODE_SERVER, here, packageDir, runNode } from "./helpers.mjs";

const page = process.env.MCPR_NODE_DOCS || path.resolve(here, "../../../docs/node.md");

test("docs/node.md: the first test passes", { skip: fs.existsSync(page) ? false : `no ${page}` }, async () => {
  const text = fs.readFileSync(page, "utf8");
  const section = text.slice(text.indexOf("## A first test"));
  const block = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(block, "no js block under 'A first test'");
  assert.match(block[1], /^\/\/ test\/echo\.test\.mjs$/m);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpr-docs-"));
  try {
    fs.mkdirSync(path.join(dir, "node_modules"));
    fs.symlinkSync(packageDir, path.join(dir, "node_modules", "mcpr"), "dir");
    fs.mkdirSync(path.join(dir, "test"));
    fs.writeFileSync(path.join(dir, "test", "echo.test.mjs"), block[1]);
    fs.copyFileSync(NODE_SERVER, path.join(dir, "server.js"));
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "docs-example", private: true }));
    // A test run of its own, not a child of this one (NODE_TEST_CONTEXT), reporting in TAP.
    const env = { ...process.env, API_TOKEN: "from-the-runner" };
    delete env.NODE_TEST_CONTEXT;
    const run = await runNode("--test", ["--test-reporter=tap", path.join(dir, "test", "echo.test.mjs")], { env, cwd: dir });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^# pass 2$/m, run.stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
