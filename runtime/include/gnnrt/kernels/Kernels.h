//===- Kernels.h - Every kernel family, for generated code ------*- C++ -*-===//
//
// The one kernel header generated trainers include: every family the
// emitted C++ may call. The families are declared once each, in
// families/<Family>.def, over GraphView and the shared enums (Types.h), and
// implemented per device (Device.h).
// Elementwise maps are emitted inline by gnnc, so there is no elementwise
// family, and the optimizer's update belongs to the trainer
// (gnnrt/train/Optimizer.h). The CPU kernels are templates over the scalar
// type, instantiated for float (training) and double (finite-difference
// gradient checks) in lib/kernels/cpu, so generated code compiles against
// declarations only.
//
//===----------------------------------------------------------------------===//

#ifndef GNNRT_KERNELS_KERNELS_H
#define GNNRT_KERNELS_KERNELS_H

#include "gnnrt/kernels/Aggregate.h"
#include "gnnrt/kernels/Axis.h"
#include "gnnrt/kernels/Dropout.h"
#include "gnnrt/kernels/Edge.h"
#include "gnnrt/kernels/Gemm.h"
#include "gnnrt/kernels/Loss.h"
#include "gnnrt/kernels/Norm.h"
#include "gnnrt/kernels/Relational.h"
#include "gnnrt/kernels/Types.h"

#endif // GNNRT_KERNELS_KERNELS_H
