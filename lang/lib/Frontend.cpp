//===- Frontend.cpp - Loading a .gnn program with its imports -------------===//
//
// Imports are loaded breadth-first, each file once; an import that names no
// file is an error at the import, with a suggestion from the search path.
//
//===----------------------------------------------------------------------===//
#include "gnn/lang/Frontend.h"
#include "gnn/lang/Builtins.h"
#include "gnn/lang/Parser.h"

#include <algorithm>
#include <filesystem>

using namespace gnn::lang;
namespace fs = std::filesystem;

Compilation::Compilation(FrontendOptions options)
    : options(std::move(options)), diags(sourceManager) {
  diags.setCollect(this->options.verifyDiagnostics);
}

bool Compilation::run(const std::string &path) {
  std::string error;
  std::optional<uint32_t> id = sourceManager.addFile(path, error);
  if (!id) {
    diags.error(SourceLoc{}, error);
    return false;
  }
  return process(*id);
}

bool Compilation::runOnBuffer(const std::string &name,
                              const std::string &text) {
  return process(sourceManager.addBuffer(name, text));
}

bool Compilation::process(uint32_t mainFile) {
  programs.push_back(parseProgram(mainFile, sourceManager, diags));
  // programs grows while we walk it: imports of imports are appended.
  for (size_t i = 0; i < programs.size(); ++i)
    loadImports(*programs[i]);
  std::vector<Program *> all;
  for (auto &p : programs)
    all.push_back(p.get());
  runSema(all, importAliases, semaResult, diags);
  return !diags.hasErrors();
}

std::vector<std::string>
Compilation::resolveImport(const ImportDecl &decl,
                           const std::string &importer) {
  std::error_code ec;
  if (decl.isPath) {
    fs::path p = fs::path(importer).parent_path() / decl.path.front();
    if (p.extension() != ".gnn")
      p += ".gnn";
    return fs::is_regular_file(p, ec) ? std::vector<std::string>{p.string()}
                                      : std::vector<std::string>{};
  }
  fs::path rel;
  for (const std::string &part : decl.path)
    rel /= part;
  for (const std::string &dir : options.importPaths) {
    fs::path base = fs::path(dir) / rel;
    if (fs::is_directory(base, ec)) {
      std::vector<std::string> files;
      for (const auto &entry : fs::directory_iterator(base, ec))
        if (entry.path().extension() == ".gnn")
          files.push_back(entry.path().string());
      std::sort(files.begin(), files.end());
      if (!files.empty())
        return files;
    }
    fs::path file = base;
    file += ".gnn";
    if (fs::is_regular_file(file, ec))
      return {file.string()};
  }
  return {};
}

void Compilation::loadImports(const Program &program) {
  // A copy: addFile below may reallocate the SourceManager's file table.
  const std::string importer = sourceManager.name(program.fileId);
  for (const ImportDecl &decl : program.imports) {
    std::vector<std::string> files = resolveImport(decl, importer);
    std::string spelled;
    for (const std::string &part : decl.path)
      spelled += (spelled.empty() ? "" : ".") + part;
    if (files.empty()) {
      std::string msg = "cannot find module '" + spelled + "'";
      if (!decl.isPath) {
        std::vector<std::string> known;
        std::error_code ec;
        for (const std::string &dir : options.importPaths)
          for (const auto &entry : fs::directory_iterator(dir, ec))
            known.push_back(entry.path().stem().string());
        msg = withSuggestion(msg, spelled, known);
      }
      diags.error(decl.loc, msg);
      continue;
    }
    if (!decl.isPath)
      importAliases.push_back(decl.path.front());
    for (const std::string &file : files) {
      size_t before = sourceManager.size();
      std::string error;
      std::optional<uint32_t> id = sourceManager.addFile(file, error);
      if (!id) {
        diags.error(decl.loc, error);
        continue;
      }
      if (sourceManager.size() == before)
        continue; // Already loaded.
      programs.push_back(parseProgram(*id, sourceManager, diags));
    }
  }
}
