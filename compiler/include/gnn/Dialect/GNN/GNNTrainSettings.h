//===- GNNTrainSettings.h - Train-setting records for gnn ------*- C++ -*-===//
//
// What the dialect and its users take from gnnrt/train/TrainSettings.def,
// the one list of train settings: the optimizers (`#gnn.train`'s optimizer
// parameter, parsed and printed by name) and the settings the compiler
// carries generically (`#gnn.train`'s `settings` dictionary, emitted as
// TrainSettings assignments). The compiler includes the list, never the
// runtime's headers.
//
//===----------------------------------------------------------------------===//
#ifndef GNN_DIALECT_GNN_GNNTRAINSETTINGS_H
#define GNN_DIALECT_GNN_GNNTRAINSETTINGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace gnn {

/// An optimizer a train block names.
enum class OptimizerKind : uint32_t {
#define GNN_TRAIN_OPTIMIZER(NAME, ...) NAME,
#include "gnnrt/train/TrainSettings.def"
};

/// One optimizer's record.
struct OptimizerInfo {
  OptimizerKind kind;
  llvm::StringLiteral name;
  /// The weight decay it defaults to.
  double weightDecay;
};

inline llvm::ArrayRef<OptimizerInfo> optimizers() {
  static const OptimizerInfo table[] = {
#define GNN_TRAIN_OPTIMIZER(NAME, ENUMERATOR, HYPERPARAMETERS, WEIGHT_DECAY,   \
                            SUMMARY)                                           \
  {OptimizerKind::NAME, #NAME, WEIGHT_DECAY},
#include "gnnrt/train/TrainSettings.def"
  };
  return table;
}

inline std::optional<OptimizerKind> symbolizeOptimizerKind(llvm::StringRef s) {
  for (const OptimizerInfo &o : optimizers())
    if (o.name == s)
      return o.kind;
  return std::nullopt;
}

inline llvm::StringRef stringifyOptimizerKind(OptimizerKind kind) {
  return optimizers()[uint32_t(kind)].name;
}

/// How the compiler carries a setting into TrainSettings (the .def's EMIT).
enum class SettingEmission { Always, IfGiven, Custom, Never };

/// A value the `settings` dictionary holds: an i64, an f64 or a string.
enum class SettingCarrier { Integer, Number, String, Bytes, None };

/// One train setting, as the compiler sees it.
struct TrainSettingRecord {
  llvm::StringLiteral key;
  SettingCarrier carrier;
  SettingEmission emission;
};

namespace detail {
/// The dictionary value a setting of `kind` takes (TrainSettings.def's KIND).
inline SettingCarrier carrierOf(llvm::StringRef kind) {
  return kind == "PositiveInteger" || kind == "Count" ? SettingCarrier::Integer
         : kind == "Seconds"                          ? SettingCarrier::Number
         : kind == "ByteSize"                         ? SettingCarrier::Bytes
         : kind == "File" || kind == "Directory" || kind == "Symbol"
             ? SettingCarrier::String
             : SettingCarrier::None;
}
} // namespace detail

/// Every train setting, in the order TrainSettings are emitted.
inline llvm::ArrayRef<TrainSettingRecord> trainSettingRecords() {
  static const TrainSettingRecord table[] = {
#define GNN_TRAIN_SETTING(KEY, KIND, CHOICES, EMIT, EXPECTED)                  \
  {#KEY, detail::carrierOf(#KIND), SettingEmission::EMIT},
#include "gnnrt/train/TrainSettings.def"
  };
  return table;
}

/// A TrainSettings field: its setting's (or hyperparameter's) name, the
/// field, and its default as C++ source.
struct TrainFieldRecord {
  llvm::StringLiteral name, field, defaultValue;
};

inline llvm::ArrayRef<TrainFieldRecord> trainFieldRecords() {
  static const TrainFieldRecord table[] = {
#define GNN_TRAIN_FIELD(NAME, FIELD, TYPE, DEFAULT, FLAG, METAVAR, HELP)       \
  {#NAME, #FIELD, #DEFAULT},
#include "gnnrt/train/TrainSettings.def"
  };
  return table;
}

} // namespace gnn

#endif // GNN_DIALECT_GNN_GNNTRAINSETTINGS_H
