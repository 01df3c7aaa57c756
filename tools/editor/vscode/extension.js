// Starts gnn-lsp (the .gnn language server) for .gnn files. The server speaks
// LSP on stdio; its path and arguments come from the gnn.server settings.
// Install: `npm install` in this folder, then copy or link the folder into
// ~/.vscode/extensions (or run it with `code --extensionDevelopmentPath=.`).
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('gnn.server');
  const executable = {
    command: config.get('path', 'gnn-lsp'),
    args: config.get('args', []),
    transport: TransportKind.stdio,
  };
  client = new LanguageClient('gnn', 'gnn language server',
    { run: executable, debug: executable },
    { documentSelector: [{ scheme: 'file', language: 'gnn' }] });
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
