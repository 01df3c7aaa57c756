//===- CommandLine.cpp - The command line of a generated trainer ----------===//

#include "CommandLine.h"

#include "gnnrt/graph/Reorder.h"
#include "gnnrt/io/CsvReader.h" // parseInt64
#include "gnnrt/support/ByteSize.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <type_traits>

namespace gnnrt {

namespace {

int64_t integerValue(const std::string &option, const std::string &text,
                     int64_t minimum, const char *expected) {
  int64_t value;
  if (!parseInt64(text, value))
    throw UsageError(option + " expects an integer, got '" + text + "'");
  if (value < minimum)
    throw UsageError(option + " expects " + expected + ", got '" + text + "'");
  return value;
}

/// A finite number of at least (or, `strict`, above) `minimum`.
double numberValue(const std::string &option, const std::string &text,
                   double minimum, const char *expected, bool strict = false) {
  const char *begin = text.c_str();
  char *end = nullptr;
  double value = std::strtod(begin, &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
    throw UsageError(option + " expects a number, got '" + text + "'");
  if (strict ? value <= minimum : value < minimum)
    throw UsageError(option + " expects " + expected + ", got '" + text + "'");
  return value;
}

double positiveNumber(const std::string &option, const std::string &text) {
  return numberValue(option, text, 0, "a positive number", /*strict=*/true);
}

struct OptionSpec {
  const char *name;
  const char *valueName; ///< null for a flag
  const char *help;
  void (*apply)(DriverOptions &, const std::string &name,
                const std::string &value);
};

const OptionSpec kOptions[] = {
    {"--help", nullptr, "print this help and exit",
     [](DriverOptions &o, auto &, auto &) { o.help = true; }},
    {"--data", "DIR",
     "dataset directory: OGB raw layout or .npy arrays (required unless the "
     "dataset is generated)",
     [](DriverOptions &o, auto &, auto &v) { o.dataDir = v; }},
    {"--threads", "N", "OpenMP and OpenBLAS threads (default: all cores)",
     [](DriverOptions &o, auto &n, auto &v) {
       o.threads = int(integerValue(n, v, 1, "a positive integer"));
     }},
    {"--device", "N",
     "trainers built with gnnc --target=cuda: the CUDA device to train on "
     "(default: the rank's node-local rank modulo the node's devices, so "
     "under mpirun each rank of a node takes its own GPU)",
     [](DriverOptions &o, auto &n, auto &v) {
       o.device = int(integerValue(n, v, 0, "a non-negative integer"));
     }},
    {"--sampler-threads", "N",
     "sampled training: background threads that sample and gather the "
     "next batches while one trains (default 1; 0: sample in the "
     "training thread). Under mpirun sampling is collective: it runs in "
     "the training thread unless this option is 1, which samples on one "
     "thread per rank with a communicator of its own",
     [](DriverOptions &o, auto &n, auto &v) {
       o.samplerThreads = int(integerValue(n, v, 0, "a non-negative integer"));
       o.samplerThreadsGiven = true;
     }},
    {"--steps-per-epoch", "N",
     "sampled programs (batches = neighbor(...)): train only the first N "
     "batches of each epoch's shuffled order (quick runs and benchmarks on "
     "big graphs; the batches are the ones a whole epoch starts with)",
     [](DriverOptions &o, auto &n, auto &v) {
       o.maxStepsPerEpoch = integerValue(n, v, 1, "a positive integer");
     }},
    {"--sample-on", "WHERE",
     "trainers built with gnnc --target=cuda, sampled training: device "
     "(default) draws the batches' neighbours on the GPU and gathers their "
     "input rows there from features kept in device memory (when they fit); "
     "host samples and gathers on the CPU, as a CPU trainer does. The "
     "batches are the same either way",
     [](DriverOptions &o, auto &n, auto &v) {
       if (v != "device" && v != "host")
         throw UsageError(n + " expects device or host, got '" + v + "'");
       o.hostSampling = v == "host";
     }},
    {"--prefetch", "N",
     "with --samplers: batch requests each trainer rank keeps in flight, "
     "so that the next batches are sampled while one trains (default 2)",
     [](DriverOptions &o, auto &n, auto &v) {
       o.prefetch = int(integerValue(n, v, 1, "a positive integer"));
     }},
    {"--node-order", "ORDER",
     "full-graph training in one process: number the nodes for cache "
     "locality, auto (default: the order a cache model of the aggregation "
     "finds best), original, community, rcm or degree; outputs stay in the "
     "dataset's ids",
     [](DriverOptions &o, auto &n, auto &v) {
       if (v != "auto" && !nodeOrderFromName(v))
         throw UsageError(n + " expects auto, original, community, rcm or "
                               "degree, got '" + v + "'");
       o.nodeOrder = v;
     }},
    {"--metrics", "FILE",
     "write one JSON line per epoch: loss, accuracies, epoch_seconds",
     [](DriverOptions &o, auto &, auto &v) { o.metricsFile = v; }},
    {"--save", "FILE", "save the trained weights (safetensors)",
     [](DriverOptions &o, auto &, auto &v) { o.saveFile = v; }},
    {"--load", "FILE", "start from the weights in FILE (safetensors)",
     [](DriverOptions &o, auto &, auto &v) { o.loadFile = v; }},
    {"--resume", "FILE",
     "continue exactly where the resumable checkpoint FILE left off, up to "
     "--epochs; the metrics file is appended to",
     [](DriverOptions &o, auto &, auto &v) { o.resumeFile = v; }},
    {"--predict", "FILE",
     "write the predicted class of every node as CSV (node,prediction)",
     [](DriverOptions &o, auto &, auto &v) { o.predictFile = v; }},
    {"--pairs", "FILE",
     "with --predict, a link-prediction program: score the node pairs of "
     "FILE (src,dst per row, CSV or .csv.gz) and write them as CSV "
     "(src,dst,score,probability); a knowledge graph: the triples of FILE "
     "(head<TAB>relation<TAB>tail by name, as train.txt) as CSV "
     "(head,relation,tail,score,probability)",
     [](DriverOptions &o, auto &, auto &v) { o.pairsFile = v; }},
    {"--embeddings", "FILE",
     "a link-prediction program whose score multiplies node rows (a dot "
     "product, DistMult): write every node's row, float32 [nodes, width] "
     ".npy",
     [](DriverOptions &o, auto &, auto &v) { o.embeddingsFile = v; }},
    {"--eval-only", nullptr, "with --load: evaluate without training",
     [](DriverOptions &o, auto &, auto &) { o.evalOnly = true; }},
    {"--progress-every", "SECONDS",
     "when stderr is not a terminal, print where a long (sampled) epoch is "
     "every SECONDS (default 5; 0: only a line per epoch)",
     [](DriverOptions &o, auto &n, auto &v) {
       o.progressEvery = numberValue(n, v, 0, "a non-negative number");
     }},
    {"--stats", nullptr,
     "print parameter count, memory plan and mean epoch time",
     [](DriverOptions &o, auto &, auto &) { o.stats = true; }},
    {"--gradcheck", nullptr,
     "check the compiled gradients against finite differences in float64 "
     "on a small random graph, then exit",
     [](DriverOptions &o, auto &, auto &) { o.gradcheck = true; }},
    {"--gradcheck-nodes", "N", "nodes of the --gradcheck graph (default 12)",
     [](DriverOptions &o, auto &n, auto &v) {
       o.gradcheckNodes = integerValue(n, v, 2, "an integer >= 2");
     }},
    {"--fold", "K",
     "graph-level programs (batches = graphs(...)): train and evaluate fold "
     "K (0-based) of the dataset's cross-validation folds only (default: "
     "every fold in turn, each from freshly initialized parameters)",
     [](DriverOptions &o, auto &n, auto &v) {
       o.fold = integerValue(n, v, 0, "a non-negative integer");
     }},
};

/// A flag's value parsed as its setting's kind (TrainSettings.def). Each
/// kind's parser returns what the field holds.
struct SettingValue {
  const std::string &name, &text;

  int64_t positiveInteger() const {
    return integerValue(name, text, 1, "a positive integer");
  }
  int64_t count() const {
    return integerValue(name, text, 0, "a non-negative integer");
  }
  /// 0 waits forever.
  double seconds() const {
    return text == "0" ? 0 : positiveNumber(name, text);
  }
  /// One of a Symbol setting's choices (space-separated).
  std::string symbol(const std::string &choices) const {
    std::vector<std::string> names;
    for (size_t b = 0; b < choices.size();) {
      size_t e = choices.find(' ', b);
      if (e == std::string::npos)
        e = choices.size();
      names.push_back(choices.substr(b, e - b));
      if (names.back() == text)
        return text;
      b = e + 1;
    }
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
      list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    throw UsageError(name + " expects " + list + ", got '" + text + "'");
  }
  std::string file() const { return text; }
  std::string directory() const { return text; }
  int64_t byteSize() const { return parseByteSize(name, text); }
  /// An optimizer's hyperparameter.
  double hyperparameter() const { return positiveNumber(name, text); }
};

/// The kind of each setting's value, by name (hyperparameters: none).
const char *settingKind(const char *name) {
#define GNN_TRAIN_SETTING(KEY, KIND, CHOICES, EMIT, EXPECTED)                  \
  if (std::strcmp(name, #KEY) == 0)                                            \
    return #KIND;
#include "gnnrt/train/TrainSettings.def"
  return "Hyperparameter";
}

/// The choices of a Symbol setting, space-separated ("": none).
const char *settingChoices(const char *name) {
#define GNN_TRAIN_SETTING(KEY, KIND, CHOICES, EMIT, EXPECTED)                  \
  if (std::strcmp(name, #KEY) == 0)                                            \
    return CHOICES;
#include "gnnrt/train/TrainSettings.def"
  return "";
}

/// Parses `value` for the flag of setting `name` into `field`.
template <typename T>
void parseSetting(const char *name, T &field, const SettingValue &value) {
  const std::string kind = settingKind(name);
  if constexpr (std::is_same_v<T, std::string>) {
    field = kind == "Directory" ? value.directory()
            : kind == "Symbol"  ? value.symbol(settingChoices(name))
                                : value.file();
  } else if constexpr (std::is_floating_point_v<T>) {
    field = kind == "Seconds" ? value.seconds() : value.hyperparameter();
  } else {
    field = T(kind == "PositiveInteger" ? value.positiveInteger()
              : kind == "ByteSize"      ? value.byteSize()
                                        : value.count());
  }
}

/// The options that override a train setting, from its record.
struct SettingOptionSpec {
  const char *name;
  const char *valueName;
  const char *help;
  void (*apply)(TrainSettings &, const std::string &name,
                const std::string &value);
};

const SettingOptionSpec kSettingOptions[] = {
#define GNN_TRAIN_FIELD(NAME, FIELD, TYPE, DEFAULT, FLAG, METAVAR, HELP)       \
  {FLAG, METAVAR, HELP,                                                        \
   [](TrainSettings &s, const std::string &n, const std::string &v) {          \
     parseSetting(#NAME, s.FIELD, SettingValue{n, v});                         \
   }},
#include "gnnrt/train/TrainSettings.def"
};

/// An option of either table (the other pointer null), or neither.
std::pair<const OptionSpec *, const SettingOptionSpec *>
findOption(const std::string &name) {
  for (const OptionSpec &spec : kOptions)
    if (name == spec.name)
      return {&spec, nullptr};
  for (const SettingOptionSpec &spec : kSettingOptions)
    if (*spec.name && name == spec.name)
      return {nullptr, &spec};
  return {nullptr, nullptr};
}

/// `flag`, then `help` from column kHelpColumn, wrapped before column 80.
std::string wrapHelp(const std::string &flag, const std::string &help) {
  constexpr size_t kHelpColumn = 24, kWidth = 79;
  std::string text, line = flag;
  if (line.size() + 2 > kHelpColumn) { // a long flag gets a line of its own
    text = line + "\n";
    line.clear();
  }
  line.resize(kHelpColumn, ' ');
  std::istringstream words(help);
  for (std::string word; words >> word;) {
    if (line.size() > kHelpColumn && line.size() + 1 + word.size() > kWidth) {
      text += line + "\n";
      line.assign(kHelpColumn, ' ');
    }
    line += (line.size() > kHelpColumn ? " " : "") + word;
  }
  return text + line + "\n";
}

std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

/// A setting's value as --help shows it, by its kind, and whether it is off
/// (0 or empty, except a waiting time, where 0 waits forever).
struct SettingText {
  std::string text;
  bool off = false;
};

template <typename T>
SettingText settingText(const char *name, const T &value) {
  const std::string kind = settingKind(name);
  if constexpr (std::is_same_v<T, std::string>) {
    return {value, value.empty()};
  } else if constexpr (std::is_floating_point_v<T>) {
    if (kind == "Seconds")
      return {value > 0 ? formatNumber(value) + " s" : "none (wait forever)"};
    return {formatNumber(value), value == 0};
  } else {
    return {std::to_string(value) + (kind == "ByteSize" ? " bytes" : ""),
            value == 0};
  }
}

std::string optimizerSummary(const TrainSettings &s) {
  std::string text = s.optimizer + " lr " + formatNumber(s.lr);
  if (s.optimizer == "sgd")
    text += " momentum " + formatNumber(s.momentum);
  else
    text += " beta1 " + formatNumber(s.beta1) + " beta2 " +
            formatNumber(s.beta2) + " eps " + formatNumber(s.eps);
  return text + " weight_decay " + formatNumber(s.weightDecay);
}

} // namespace

int64_t parseByteSize(const std::string &option, const std::string &text) {
  if (std::optional<int64_t> bytes = parseByteSize(text))
    return *bytes;
  throw UsageError(option + " expects a size such as " + kByteSizeExamples +
                   ", got '" + text + "'");
}

std::string programName(const char *argv0) {
  std::string name = argv0 && *argv0 ? argv0 : "trainer";
  size_t slash = name.find_last_of('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

DriverOptions parseCommandLine(const std::vector<std::string> &args,
                               TrainSettings &settings) {
  DriverOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i], value;
    if (name.rfind("--", 0) != 0)
      throw UsageError("unexpected argument '" + name + "'");
    size_t equals = name.find('=');
    bool inlineValue = equals != std::string::npos;
    if (inlineValue) {
      value = name.substr(equals + 1);
      name.resize(equals);
    }
    auto [spec, setting] = findOption(name);
    if (!spec && !setting)
      throw UsageError("unknown option '" + name + "'");
    const char *valueName = spec ? spec->valueName : setting->valueName;
    if (!valueName && inlineValue)
      throw UsageError(name + " takes no value");
    if (valueName && !inlineValue) {
      // An option name is never a value: `--data --epochs 5` lost the DIR.
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
        throw UsageError(name + " expects a value (" + valueName + ")");
      value = args[++i];
    }
    if (spec)
      spec->apply(o, name, value);
    else {
      setting->apply(settings, name, value);
      o.overrides.insert(name);
    }
  }
  if (o.help)
    return o;
  if (o.evalOnly && o.loadFile.empty())
    throw UsageError("--eval-only needs --load FILE");
  if (!o.pairsFile.empty() && o.predictFile.empty())
    throw UsageError("--pairs names the pairs --predict FILE scores: give "
                     "--predict too");
  if (!o.resumeFile.empty() && !o.loadFile.empty())
    throw UsageError("--resume and --load cannot be combined (--resume "
                     "restores the weights too)");
  if (!o.resumeFile.empty() && o.evalOnly)
    throw UsageError("--eval-only takes --load FILE, not --resume");
  if (o.evalOnly && o.gradcheck)
    throw UsageError("--eval-only and --gradcheck cannot be combined");
  if (settings.memoryBudget > 0 && settings.offloadDir.empty())
    throw UsageError("--memory-budget needs --offload DIR (where the "
                     "partitions that do not fit live)");
  if (!settings.offloadDir.empty() && settings.memoryBudget == 0)
    throw UsageError("--offload needs --memory-budget SIZE (e.g. 1G): the "
                     "partition count follows from it");
  if (o.dataDir.empty() && settings.source != "generate" && !o.gradcheck)
    throw UsageError("--data DIR is required (the directory of dataset '" +
                     settings.dataset + "')");
  return o;
}

std::string usageText(const std::string &name, const CompiledProgram &program) {
  const TrainSettings &s = program.settings;
  std::string text =
      "usage: " + name + " [options]\n\nTrains model " + program.model;
  if (!program.sourceFile.empty())
    text += " (compiled from " + program.sourceFile + ")";
  text += " on dataset " + s.dataset + ".\n\noptions:\n";
  auto option = [&](const char *name, const char *valueName, const char *help) {
    std::string flag = std::string("  ") + name;
    if (valueName)
      flag += std::string(" ") + valueName;
    text += wrapHelp(flag, help);
  };
  // --help and --data, the settings' flags, then the other run options.
  for (size_t i = 0; i < std::size(kOptions); ++i) {
    option(kOptions[i].name, kOptions[i].valueName, kOptions[i].help);
    if (std::strcmp(kOptions[i].name, "--data") == 0)
      for (const SettingOptionSpec &spec : kSettingOptions)
        if (*spec.name)
          option(spec.name, spec.valueName, spec.help);
  }
  text += "\ncompiled-in settings:\n";
  text += "  dataset    " + s.dataset + " (" + s.source +
          (s.split.empty() ? "" : ", split " + s.split) +
          (s.addReverseEdges ? ", reverse edges" : "") +
          (s.addSelfLoops ? ", self loops" : "") + ")\n";
  text += "  optimizer  " + optimizerSummary(s) + "\n";
  // param_groups, in order: a parameter takes the first that matches it.
  for (const TrainSettings::ParamGroup &g : s.paramGroups)
    text +=
        "  group      " + g.name + " (" + g.pattern +
        "):" + (g.frozen ? " frozen" : "") +
        (g.lr ? " lr " + formatNumber(*g.lr) : "") +
        (g.weightDecay ? " weight_decay " + formatNumber(*g.weightDecay) : "") +
        "\n";
  if (s.graphBatches.batchSize > 0) {
    text += "  batches    " + std::to_string(s.graphBatches.batchSize) +
            " graphs, packed into one block-diagonal graph" +
            (s.graphBatches.shuffle ? "" : ", not shuffled") + "\n";
  } else if (s.fanouts.empty()) {
    text += "  batches    full graph\n";
  } else {
    std::string fanouts;
    for (size_t i = 0; i < s.fanouts.size(); ++i)
      fanouts += (i ? ", " : "") + std::to_string(s.fanouts[i]);
    text += "  batches    " + std::to_string(s.batchSize) +
            " seeds, fanouts [" + fanouts + "] (layer 0 first)" +
            (s.replace ? ", with replacement" : "") +
            (s.shuffle ? "" : ", not shuffled") + "\n";
  }
  // The learning rate's course and early stopping, when the block sets them.
  const TrainSettings::LrSchedule &schedule = s.lrSchedule;
  if (!schedule.kind.empty() || s.warmupEpochs > 0) {
    std::string course = schedule.kind == "step"
                             ? "step: times " + formatNumber(schedule.gamma) +
                                   " every " +
                                   std::to_string(schedule.stepSize) + " epochs"
                         : schedule.kind == "cosine"
                             ? "cosine: down to " + formatNumber(schedule.minLr)
                             : std::string("constant");
    if (s.warmupEpochs > 0)
      course += ", after a linear warm-up of " +
                std::to_string(s.warmupEpochs) + " epochs";
    text += "  lr_schedule " + course + "\n";
  }
  if (s.earlyStopping.patience > 0)
    text += "  early_stopping after " +
            std::to_string(s.earlyStopping.patience) +
            " epochs without a better " + s.earlyStopping.monitor +
            ", keeping the best epoch's weights\n";
  // The splits `evaluate = [...]` names (every split if none).
  std::string splits = s.evaluate.empty() ? "train, valid and test" : "";
  for (size_t i = 0; i < s.evaluate.size(); ++i)
    splits += (i == 0 ? "" : i + 1 == s.evaluate.size() ? " and " : ", ") +
              s.evaluate[i];
  text += "  evaluate   " + splits + " every " +
          std::to_string(s.evaluateEvery) + " epochs and after the last\n";
  // The generic settings (Always and IfGiven in TrainSettings.def), one line
  // each in the train block's order, their values shown by kind; an IfGiven
  // one that is off (no samplers, no offload directory) has none.
  std::map<std::string, SettingText> values;
#define GNN_TRAIN_FIELD(NAME, FIELD, TYPE, DEFAULT, FLAG, METAVAR, HELP)       \
  values[#NAME] = settingText(#NAME, s.FIELD);
#include "gnnrt/train/TrainSettings.def"
  auto line = [&](const char *key, const std::string &emit) {
    const SettingText &value = values[key];
    if (emit == "Always" || (emit == "IfGiven" && !value.off)) {
      std::string name = key;
      name.resize(std::max<size_t>(name.size(), 10), ' ');
      text += "  " + name + " " + value.text + "\n";
    }
  };
#define GNN_TRAIN_SETTING(KEY, KIND, CHOICES, EMIT, EXPECTED) line(#KEY, #EMIT);
#include "gnnrt/train/TrainSettings.def"
  return text;
}

} // namespace gnnrt
