//===- TempFiles.h - Temporaries removed on a fatal signal ----*- C++ -*-===//
//
// Outputs are written under a temporary name and renamed into place when
// complete (AtomicFile, the dataset cache). A destructor removes such a file
// on an error, but SIGTERM or SIGINT ends the process without unwinding, and
// the temporary (a 100 MB dataset cache, say) would stay beside the data
// forever. Each temporary is registered here while it exists; the first
// registration installs a handler for SIGTERM, SIGINT and SIGHUP that unlinks
// every registered path, restores the previous disposition and re-raises the
// signal, so the exit status still says which signal ended the run. A
// temporary directory (a partitioning being written) is removed with its
// contents. SIGKILL cannot be caught: a reader never trusts a temporary name
// for that reason, and a writer whose temporaries carry its process id
// (`temporaryTag`) removes those of dead writers before it starts
// (`removeStaleTemporaries`).
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_SUPPORT_TEMPFILES_H
#define GNNRT_SUPPORT_TEMPFILES_H

#include <string>

namespace gnnrt {

/// Registers `path` to be unlinked if SIGTERM, SIGINT or SIGHUP ends the
/// process. Thread-safe. A full table (64 live temporaries) or an over-long
/// path is silently not registered: cleanup is best effort, never an error.
void registerTempFile(const std::string &path);

/// Registers the directory `path` to be removed with everything in it if
/// SIGTERM, SIGINT or SIGHUP ends the process (as registerTempFile).
void registerTempDirectory(const std::string &path);

/// Forgets `path` (after it was renamed into place or removed).
void unregisterTempFile(const std::string &path);

/// "<pid>-": what a temporary name carries after its fixed prefix so that a
/// later writer can tell a dead writer's leftover from a live one's.
std::string temporaryTag();

/// Removes the entries of `dir` named `<prefix><pid>-...` (files or whole
/// directories) whose process no longer exists: what a writer killed by
/// SIGKILL left. Entries of live processes, and names without a pid, stay.
/// Returns how many were removed; errors are ignored (best effort).
int removeStaleTemporaries(const std::string &dir, const std::string &prefix);

} // namespace gnnrt

#endif // GNNRT_SUPPORT_TEMPFILES_H
