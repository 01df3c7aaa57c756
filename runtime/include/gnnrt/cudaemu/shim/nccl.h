//===- nccl.h - The emulated build's <nccl.h> -----------------------------===//
//
// On the include path of the emulated build only: the NCCL subset gnnrt
// uses, over MPI (gnnrt/cudaemu/Nccl.h).
//
//===----------------------------------------------------------------------===//

#include "gnnrt/cudaemu/Nccl.h"
