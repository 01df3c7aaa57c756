//===- cublas_v2.h - The emulated build's <cublas_v2.h> ------------------===//
//
// On the include path of the emulated build only: cuBLAS served by
// OpenBLAS (gnnrt/cudaemu/Cublas.h).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/Cublas.h"
#include "gnnrt/cudaemu/Cuda.h"
