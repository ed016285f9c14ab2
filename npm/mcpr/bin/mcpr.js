#!/usr/bin/env node
// The `mcpr` command of the npm package: finds the binary that the platform package
// installed (one of `optionalDependencies`; npm installs only the one whose os, cpu and
// libc match) and runs it with the same arguments, standard streams and exit status.
"use strict";

const { spawnSync } = require("node:child_process");
const { binaryPath } = require("../lib/binary.js");

let binary;
try {
  binary = binaryPath();
} catch (err) {
  process.stderr.write(`mcpr: ${err.message}\n`);
  process.exit(1);
}

const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  process.stderr.write(`mcpr: cannot run ${binary}: ${result.error.message}\n`);
  process.exit(1);
}
if (result.signal) {
  // Die of the same signal, so the caller sees what the binary saw.
  process.kill(process.pid, result.signal);
}
process.exit(result.status === null ? 1 : result.status);
