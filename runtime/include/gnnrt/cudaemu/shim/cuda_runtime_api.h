//===- cuda_runtime_api.h - The emulated build's <cuda_runtime_api.h>
//----------------------------===//
//
// On the include path of the emulated build only (gnnrt/cudaemu/Cuda.h).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/Cuda.h"
