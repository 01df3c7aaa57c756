//===- comm-deadlock.cpp - Ranks that wait for each other -----------------===//
//
// A test helper for test/Distributed/deadlock.test. No trainer deadlocks on
// purpose, so this program makes a deadlock through gnnrt's communicator:
// rank 0 waits in a barrier that the others never enter, and the others wait
// for a message that rank 0 never sends. Every rank is alive and answers the
// liveness check, so the communicator must report a deadlock, not a silent
// rank. Errors end the run as the trainer's do: `PROGRAM: rank R: error:
// MESSAGE` on stderr and every rank aborted.
//
//   mpirun -np N comm-deadlock TIMEOUT_SECONDS
//
//===----------------------------------------------------------------------===//

#include "gnnrt/comm/Communicator.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

using namespace gnnrt;

int main(int argc, char **argv) {
  std::unique_ptr<Communicator> comm;
  try {
    comm = makeCommunicator();
    comm->setTimeout(argc > 1 ? std::atof(argv[1]) : 2);
    if (comm->rank() == 0) {
      comm->barrier();
    } else {
      char byte = 0;
      comm->sendRecv(nullptr, 0, Communicator::kNoPeer, &byte, 1, 0);
    }
    std::printf("comm-deadlock: rank %d: the wait ended\n", comm->rank());
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "comm-deadlock: rank %d: error: %s\n",
                 comm ? comm->rank() : 0, e.what());
    std::fflush(stderr);
    if (comm)
      abortAllRanks(*comm, 1);
    return 1;
  }
}
