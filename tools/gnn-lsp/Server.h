//===- Server.h - The .gnn language server ----------------------*- C++ -*-===//
//
// gnn-lsp keeps one front-end Compilation per open document, rebuilt on every
// change (full text sync), and answers the editor's requests from it:
// diagnostics exactly as gnnc prints them, hover (inferred shapes,
// signatures), go-to-definition across imports, completion, and document
// symbols. It is single-threaded: messages are handled in arrival order, so
// a session's output is deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_LSP_SERVER_H
#define GNN_LSP_SERVER_H

#include "Protocol.h"

#include "gnn/lang/ASTQuery.h"
#include "gnn/lang/Frontend.h"

#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gnnlsp {

/// One open document and the front end's view of its current text.
struct Document {
  std::string uri;
  /// The file-system path (imports of `"dir/file"` resolve against it).
  std::string path;
  std::string text;
  int64_t version = 0;
  std::unique_ptr<gnn::lang::Compilation> compilation;
  /// Other files whose diagnostics this document published last time.
  std::set<std::string> otherUris;

  const gnn::lang::Program *program() const {
    return compilation ? compilation->mainProgram() : nullptr;
  }
};

/// A request failed: answered with this code and message.
struct RequestError {
  int code;
  std::string message;
};

class Server {
public:
  Server(std::ostream &out, std::vector<std::string> importPaths)
      : out(out), importPaths(std::move(importPaths)) {}

  /// Reads and handles messages until `exit` or the end of input. Returns
  /// the process exit status: 0 after shutdown then exit, 1 otherwise.
  int run(std::istream &in);
  /// Handles one message body (JSON text).
  void handleBody(const std::string &body);

  bool exited() const { return exitRequested; }

private:
  void handleMessage(const json &message);
  json handleRequest(const std::string &method, const json &params);
  void handleNotification(const std::string &method, const json &params);
  void reply(const json &id, json result);
  void replyError(const json &id, int code, const std::string &message);
  void notify(const std::string &method, json params);

  // Documents.
  void open(const std::string &uri, std::string text, int64_t version);
  void change(Document &doc, const json &changes, int64_t version);
  void analyze(Document &doc);
  void publishDiagnostics(Document &doc);
  Document &document(const json &params);

  // Features (Features.cpp).
  json hover(Document &doc, const json &position);
  json definition(Document &doc, const json &position);
  json completion(Document &doc, const json &position);
  json documentSymbols(Document &doc);

  std::ostream &out;
  std::vector<std::string> importPaths;
  std::map<std::string, Document> documents;
  bool initialized = false, shutdownRequested = false, exitRequested = false;
};

} // namespace gnnlsp

#endif // GNN_LSP_SERVER_H
