// Type declarations of the `mcpr` package's library for `import` (docs/node.md): the
// same as index.d.ts, which describes the CommonJS entry point.
export * from "./index.js";
import * as mcpr from "./index.js";
export default mcpr;
