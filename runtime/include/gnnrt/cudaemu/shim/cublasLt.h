//===- cublasLt.h - The emulated build's <cublasLt.h> --------------------===//
//
// On the include path of the emulated build only: cuBLASLt served by
// OpenBLAS (gnnrt/cudaemu/CublasLt.h).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/CublasLt.h"
#include "gnnrt/cudaemu/Cuda.h"
