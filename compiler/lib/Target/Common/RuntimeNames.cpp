//===- RuntimeNames.cpp - the gnnrt enumerators generated code spells -----===//
//
// The dialect's enums and the runtime's mirror each other one to one; these
// switches are the only place the correspondence is written.
//
//===----------------------------------------------------------------------===//

#include "gnn/Target/Common/RuntimeNames.h"

using namespace gnn;

llvm::StringRef gnn::target::rt::reduce(ReduceKind kind) {
  // clang-format off
  switch (kind) {
  case ReduceKind::sum: return "Reduce::Sum";
  case ReduceKind::mean: return "Reduce::Mean";
  case ReduceKind::max: return "Reduce::Max";
  case ReduceKind::min: return "Reduce::Min";
  }
  // clang-format on
  return "Reduce::Sum";
}

llvm::StringRef gnn::target::rt::side(EdgeSide side) {
  return side == EdgeSide::src ? "Side::Src" : "Side::Dst";
}

llvm::StringRef gnn::target::rt::init(InitKind kind) {
  // clang-format off
  switch (kind) {
  case InitKind::zeros: return "Init::Zeros";
  case InitKind::ones: return "Init::Ones";
  case InitKind::glorot: return "Init::Glorot";
  case InitKind::kaiming: return "Init::Kaiming";
  case InitKind::uniform: return "Init::Uniform";
  case InitKind::normal: return "Init::Normal";
  case InitKind::constant: return "Init::Constant";
  }
  // clang-format on
  return "Init::Glorot";
}

llvm::StringRef gnn::target::rt::haloMode(HaloMode mode) {
  switch (mode) {
  case HaloMode::automatic:
    return "HaloMode::Auto";
  case HaloMode::one_shot:
    return "HaloMode::OneShot";
  case HaloMode::sequential:
    return "HaloMode::Sequential";
  }
  return "HaloMode::Auto";
}

std::string gnn::target::rt::cudaKernel(llvm::StringRef kernel) {
  llvm::StringRef prefix = "kernels::";
  if (!kernel.startswith(prefix))
    return kernel.str();
  return (prefix + "cuda::" + kernel.drop_front(prefix.size())).str();
}
