// The mcpr extension: the grammar and language configuration are declared in package.json;
// everything else (diagnostics, hover, completion, definitions, formatting, quick fixes)
// comes from `mcpr lsp`, started over stdio.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("mcpr");
  const command = config.get("path") || "mcpr";
  const server = { command, args: ["lsp"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "mcpr",
    "mcpr",
    { run: server, debug: server },
    {
      documentSelector: [{ scheme: "file", language: "mcpr" }, { scheme: "untitled", language: "mcpr" }],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.mcpr") },
    }
  );
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
