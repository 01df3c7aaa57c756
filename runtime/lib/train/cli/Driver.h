//===- Driver.h - trainMain on a given communicator -------------*- C++ -*-===//
//
// Internal to gnnrt. trainMain (gnnrt/train/Program.h) makes the process's
// communicator (MPI under mpirun) and hands it here. Tests run several
// ranks as threads of one process (gnnrt/comm/TurnCommunicator.h) by
// calling this once per rank with the rank's communicator.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_DRIVER_H
#define GNNRT_LIB_TRAIN_DRIVER_H

#include "gnnrt/comm/Communicator.h"
#include "gnnrt/train/Program.h"

#include <string>
#include <vector>

namespace gnnrt {

/// trainMain's work on `comm`: parses `args` (the arguments after the
/// program name `name`), trains and writes the outputs, and returns the
/// exit status. Errors are printed, never thrown; after a failure the
/// caller ends the other ranks (trainMain: abortAllRanks).
int trainOnCommunicator(const CompiledProgram &program, const std::string &name,
                        const std::vector<std::string> &args,
                        Communicator &comm);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_DRIVER_H
