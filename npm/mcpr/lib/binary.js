// Where the mcpr binary of this installation is: `MCPR_BINARY` when set, else the binary of
// the platform package that matches this machine.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** The platform packages, by `process.platform`-`process.arch`-libc. */
const PACKAGES = {
  "linux-x64-gnu": "@mcpr/linux-x64-gnu",
};

/** `gnu` or `musl` on Linux (from Node's own report of the C library), else "". */
function libc() {
  if (process.platform !== "linux") return "";
  const report = typeof process.report?.getReport === "function" ? process.report.getReport() : null;
  return report?.header?.glibcVersionRuntime ? "gnu" : "musl";
}

/** This machine's key in PACKAGES, e.g. `linux-x64-gnu`. */
function platformKey() {
  const c = libc();
  return [process.platform, process.arch, c].filter(Boolean).join("-");
}

/** The path of the mcpr binary; throws an Error that says what to do when there is none. */
function binaryPath() {
  const override = process.env.MCPR_BINARY;
  if (override) {
    if (!fs.existsSync(override)) {
      throw new Error(`MCPR_BINARY=${override} does not exist`);
    }
    return override;
  }
  const key = platformKey();
  const pkg = PACKAGES[key];
  if (!pkg) {
    throw new Error(
      `no prebuilt mcpr binary for ${key} (there are: ${Object.keys(PACKAGES).join(", ")}); ` +
        "build it with `cargo install mcpr`, then set MCPR_BINARY to its path",
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(
      `the package ${pkg}, which carries the mcpr binary for ${key}, is not installed. ` +
        "It is an optional dependency of mcpr: npm leaves it out when it cannot fetch it and " +
        "when installing with --omit=optional. Install mcpr again without that flag, or set " +
        "MCPR_BINARY to an mcpr binary",
    );
  }
  const binary = path.join(dir, "bin", process.platform === "win32" ? "mcpr.exe" : "mcpr");
  if (!fs.existsSync(binary)) {
    throw new Error(`${pkg} is installed but has no binary at ${binary}; reinstall mcpr`);
  }
  return binary;
}

module.exports = { binaryPath, platformKey, PACKAGES };
