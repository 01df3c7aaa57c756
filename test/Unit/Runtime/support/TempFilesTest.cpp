//===- TempFilesTest.cpp - Temporaries removed when a signal ends the run -===//
//
// A child process creates and registers temporaries, then is ended by a
// signal; the files must be gone and the child must still have died of
// that signal (the handler re-raises it).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/support/TempFiles.h"

#include "TestUtil.h"

#include <csignal>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

using namespace gnnrt;
using namespace gnnrt::test;
namespace fs = std::filesystem;

namespace {

/// Forks a child that creates `kept` and two registered temporaries (one
/// unregistered again), then raises `sig`; returns the child's wait status.
int runChild(const std::string &dir, int sig) {
  pid_t pid = ::fork();
  if (pid == 0) {
    for (const char *name : {"a.tmp", "b.tmp", "kept"})
      writeFile(dir + "/" + name, "x");
    registerTempFile(dir + "/a.tmp");
    registerTempFile(dir + "/b.tmp");
    registerTempFile(dir + "/kept");
    unregisterTempFile(dir + "/kept"); // renamed into place, say
    ::raise(sig);
    ::_exit(0); // not reached
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

} // namespace

TEST(TempFiles, RemovedOnTermAndIntThenSignalReraised) {
  for (int sig : {SIGTERM, SIGINT}) {
    // A signal the test runner started us with ignored (lit and shells
    // may ignore SIGINT) stays ignored, as it should: nothing to test.
    struct sigaction current;
    ::sigaction(sig, nullptr, &current);
    if (current.sa_handler == SIG_IGN)
      continue;
    TempDir tmp;
    int status = runChild(tmp.path(), sig);
    ASSERT_TRUE(WIFSIGNALED(status)) << sig;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_FALSE(fs::exists(tmp / "a.tmp"));
    EXPECT_FALSE(fs::exists(tmp / "b.tmp"));
    EXPECT_TRUE(fs::exists(tmp / "kept"));
  }
}
