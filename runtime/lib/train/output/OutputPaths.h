//===- OutputPaths.h - The outputs, checked before training -*- C++ -*-===//
//
// Internal to gnnrt. The trainer writes its outputs (--metrics, --save,
// --predict, the train block's checkpoint) only after loading the data and
// often after hours of training; a typo in a directory name must not cost
// the run. checkOutputPaths looks at every output path first, without
// creating anything, so that a dataset error still leaves no file behind.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_LIB_TRAIN_OUTPUTPATHS_H
#define GNNRT_LIB_TRAIN_OUTPUTPATHS_H

#include "cli/CommandLine.h"

namespace gnnrt {

/// Throws DataError naming the option and the path if an output cannot be
/// written: its directory does not exist or is not writable, it names a
/// directory, it is the --load file or a dataset source file, or two
/// outputs name the same file. Devices (/dev/stdout, /dev/null) are
/// accepted and written in place.
void checkOutputPaths(const DriverOptions &options,
                      const TrainSettings &settings);

} // namespace gnnrt

#endif // GNNRT_LIB_TRAIN_OUTPUTPATHS_H
