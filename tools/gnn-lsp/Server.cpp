//===- Server.cpp - Dispatch, documents and diagnostics -------------------===//
//
// JSON-RPC dispatch with the protocol's error replies (a bad message gets an
// error response, never a crash or silence), the document store, and the
// translation of the front end's diagnostics into publishDiagnostics: the
// same messages gnnc prints, located where gnnc locates them, with notes as
// related information of the error they follow.
//
//===----------------------------------------------------------------------===//
#include "Server.h"

#include <algorithm>

#include <iostream>

using namespace gnnlsp;
using namespace gnn::lang;

int Server::run(std::istream &in) {
  MessageReader reader(in);
  std::string body, error;
  while (!exitRequested) {
    MessageReader::Status status = reader.read(body, error);
    if (status == MessageReader::Status::End)
      break;
    if (status == MessageReader::Status::BadHeader) {
      std::cerr << "gnn-lsp: " << error << "\n";
      replyError(nullptr, ParseError, error);
      continue;
    }
    handleBody(body);
  }
  return exitRequested && shutdownRequested ? 0 : 1;
}

/// How deep the arrays and objects of a JSON text nest (brackets in strings
/// not counted). nlohmann's parser copes with any depth, but destroying or
/// walking the value recurses once per level: 100000 levels overflow the
/// stack. No LSP message nests more than a handful.
static size_t jsonNesting(const std::string &text) {
  size_t depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void Server::handleBody(const std::string &body) {
  constexpr size_t kMaxNesting = 256;
  if (jsonNesting(body) > kMaxNesting) {
    replyError(nullptr, ParseError,
               "JSON nested deeper than " + std::to_string(kMaxNesting) +
                   " levels");
    return;
  }
  json message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    replyError(nullptr, ParseError, "invalid JSON in message body");
    return;
  }
  handleMessage(message);
}

void Server::reply(const json &id, json result) {
  writeMessage(out, {{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

void Server::replyError(const json &id, int code, const std::string &message) {
  writeMessage(out, {{"jsonrpc", "2.0"},
                     {"id", id},
                     {"error", {{"code", code}, {"message", message}}}});
}

void Server::notify(const std::string &method, json params) {
  writeMessage(out,
               {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

void Server::handleMessage(const json &message) {
  if (!message.is_object()) {
    replyError(nullptr, InvalidRequest, "a message must be a JSON object");
    return;
  }
  auto idIt = message.find("id");
  auto methodIt = message.find("method");
  bool hasId = idIt != message.end();
  json id = hasId ? *idIt : json(nullptr);
  if (hasId && !id.is_string() && !id.is_number_integer() && !id.is_null()) {
    replyError(nullptr, InvalidRequest, "'id' must be a number or a string");
    return;
  }
  if (methodIt == message.end()) {
    // A response to a request of ours (we send none that need one).
    if (hasId && (message.contains("result") || message.contains("error")))
      return;
    replyError(id, InvalidRequest, "a request needs a 'method'");
    return;
  }
  if (!methodIt->is_string()) {
    replyError(id, InvalidRequest, "'method' must be a string");
    return;
  }
  const std::string method = *methodIt;
  json params = message.value("params", json::object());

  if (!hasId) {
    try {
      handleNotification(method, params);
    } catch (const std::exception &e) {
      // Notifications have no reply: say what went wrong on stderr.
      std::cerr << "gnn-lsp: " << method << ": " << e.what() << "\n";
    }
    return;
  }
  if (!initialized && method != "initialize") {
    replyError(id, ServerNotInitialized, "the server is not initialized");
    return;
  }
  if (shutdownRequested) {
    replyError(id, InvalidRequest, "the server is shutting down");
    return;
  }
  try {
    reply(id, handleRequest(method, params));
  } catch (const RequestError &e) {
    replyError(id, e.code, e.message);
  } catch (const json::exception &e) {
    // A field of the wrong type or a missing one.
    replyError(id, InvalidParams, std::string("invalid params: ") + e.what());
  } catch (const std::exception &e) {
    replyError(id, InternalError, e.what());
  }
}

json Server::handleRequest(const std::string &method, const json &params) {
  if (method == "initialize") {
    if (params.is_object() && params.contains("initializationOptions")) {
      const json &opts = params.at("initializationOptions");
      if (opts.is_object() && opts.contains("importPaths"))
        for (const json &p : opts.at("importPaths"))
          importPaths.insert(importPaths.begin(), p.get<std::string>());
    }
    initialized = true;
    return {{"capabilities",
             {{"textDocumentSync", {{"openClose", true}, {"change", 1}}},
              {"hoverProvider", true},
              {"definitionProvider", true},
              {"completionProvider", {{"triggerCharacters", {".", "(", ","}}}},
              {"documentSymbolProvider", true}}},
            {"serverInfo", {{"name", "gnn-lsp"}, {"version", "0.1"}}}};
  }
  if (method == "shutdown") {
    shutdownRequested = true;
    return nullptr;
  }
  if (method == "textDocument/hover")
    return hover(document(params), params.at("position"));
  if (method == "textDocument/definition")
    return definition(document(params), params.at("position"));
  if (method == "textDocument/completion")
    return completion(document(params), params.at("position"));
  if (method == "textDocument/documentSymbol")
    return documentSymbols(document(params));
  throw RequestError{MethodNotFound, "unknown method '" + method + "'"};
}

void Server::handleNotification(const std::string &method, const json &params) {
  if (method == "exit") {
    exitRequested = true;
    return;
  }
  if (!initialized || shutdownRequested)
    return;
  if (method == "textDocument/didOpen") {
    const json &item = params.at("textDocument");
    open(item.at("uri").get<std::string>(), item.at("text").get<std::string>(),
         item.value("version", 0));
  } else if (method == "textDocument/didChange") {
    change(document(params), params.at("contentChanges"),
           params.at("textDocument").value("version", 0));
  } else if (method == "textDocument/didClose") {
    Document &doc = document(params);
    notify("textDocument/publishDiagnostics",
           {{"uri", doc.uri}, {"diagnostics", json::array()}});
    for (const std::string &other : doc.otherUris)
      notify("textDocument/publishDiagnostics",
             {{"uri", other}, {"diagnostics", json::array()}});
    documents.erase(doc.uri);
  }
  // initialized, $/cancelRequest, $/setTrace, didSave...: nothing to do.
}

Document &Server::document(const json &params) {
  std::string uri = params.at("textDocument").at("uri").get<std::string>();
  auto it = documents.find(uri);
  if (it == documents.end())
    throw RequestError{InvalidParams, "document '" + uri + "' is not open"};
  return it->second;
}

//===----------------------------------------------------------------------===//
// Documents
//===----------------------------------------------------------------------===//

void Server::open(const std::string &uri, std::string text, int64_t version) {
  Document &doc = documents[uri];
  doc.uri = uri;
  doc.path = uriToPath(uri);
  doc.text = std::move(text);
  doc.version = version;
  analyze(doc);
}

void Server::change(Document &doc, const json &changes, int64_t version) {
  for (const json &c : changes) {
    std::string text = c.at("text").get<std::string>();
    if (!c.contains("range")) {
      doc.text = std::move(text);
      continue;
    }
    // Incremental edits, for clients that send them anyway.
    const json &range = c["range"];
    TextLines lines(doc.text);
    size_t begin = lines.offsetOf(range.at("start").at("line"),
                                  range.at("start").at("character"));
    size_t end = lines.offsetOf(range.at("end").at("line"),
                                range.at("end").at("character"));
    if (end < begin)
      std::swap(begin, end);
    doc.text.replace(begin, end - begin, text);
  }
  doc.version = version;
  analyze(doc);
}

void Server::analyze(Document &doc) {
  FrontendOptions options;
  options.importPaths = importPaths;
  // Collect: a language server prints nothing but protocol messages.
  options.verifyDiagnostics = true;
  doc.compilation = std::make_unique<Compilation>(options);
  doc.compilation->runOnBuffer(doc.path, doc.text);
  publishDiagnostics(doc);
}

void Server::publishDiagnostics(Document &doc) {
  Compilation &c = *doc.compilation;
  const SourceManager &sources = c.sources();
  uint32_t mainFile = doc.program() ? doc.program()->fileId : 1;
  std::map<std::string, json> byUri;
  byUri[doc.uri] = json::array();
  json *last = nullptr; // The error or warning a note belongs to.
  for (const Diagnostic &d : c.diagnostics().diagnostics()) {
    std::string uri = !d.loc.isValid() || d.loc.fileId == mainFile
                          ? doc.uri
                          : pathToUri(sources.name(d.loc.fileId));
    json range = tokenRange(sources, d.loc);
    if (d.severity == Severity::Note && last) {
      (*last)["relatedInformation"].push_back(
          {{"location", {{"uri", uri}, {"range", range}}},
           {"message", d.message}});
      continue;
    }
    int severity = d.severity == Severity::Error     ? 1
                   : d.severity == Severity::Warning ? 2
                                                     : 3;
    json &list = byUri[uri];
    if (!list.is_array())
      list = json::array();
    list.push_back({{"range", range},
                    {"severity", severity},
                    {"source", "gnnc"},
                    {"message", d.message}});
    last = &list.back();
  }
  std::set<std::string> others;
  for (auto &[uri, list] : byUri) {
    if (uri != doc.uri)
      others.insert(uri);
    json params = {{"uri", uri}, {"diagnostics", list}};
    if (uri == doc.uri)
      params["version"] = doc.version;
    notify("textDocument/publishDiagnostics", params);
    last = nullptr;
  }
  // Files that had diagnostics from this document last time but not now.
  for (const std::string &old : doc.otherUris)
    if (!others.count(old))
      notify("textDocument/publishDiagnostics",
             {{"uri", old}, {"diagnostics", json::array()}});
  doc.otherUris = std::move(others);
}
