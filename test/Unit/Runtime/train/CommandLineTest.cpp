//===- CommandLineTest.cpp - Options of generated trainers ----------------===//
//
// Defaults come from the train block, options override them in the
// effective settings, and each kind of mistake has its own exact message
// (the user-visible behaviour).
//
//===----------------------------------------------------------------------===//

#include "train/cli/CommandLine.h"
#include "train/params/OptimizerStep.h"

#include <gtest/gtest.h>

using namespace gnnrt;

namespace {

TrainSettings settings() {
  TrainSettings s;
  s.dataset = "cora";
  s.source = "ogb";
  s.epochs = 200;
  s.lr = 0.01;
  s.seed = 7;
  return s;
}

DriverOptions parse(std::vector<std::string> args,
                    TrainSettings s = settings()) {
  return parseCommandLine(args, s);
}

/// The effective settings of a command line over `s`.
TrainSettings effective(std::vector<std::string> args,
                        TrainSettings s = settings()) {
  parseCommandLine(args, s);
  return s;
}

std::string usageErrorOf(std::vector<std::string> args,
                         TrainSettings s = settings()) {
  try {
    parseCommandLine(args, s);
  } catch (const UsageError &e) {
    return e.what();
  }
  return "<no error>";
}

} // namespace

TEST(CommandLine, DefaultsComeFromTheTrainBlock) {
  DriverOptions o = parse({"--data", "d"});
  EXPECT_EQ(o.dataDir, "d");
  const TrainSettings s = effective({"--data", "d"});
  EXPECT_EQ(s.epochs, 200);
  EXPECT_EQ(s.lr, 0.01);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(o.threads, 0);
  EXPECT_EQ(s.commTimeout, kDefaultCommTimeoutSeconds);
  EXPECT_TRUE(o.overrides.empty());
  EXPECT_FALSE(o.evalOnly || o.gradcheck || o.stats || o.help);
}

TEST(CommandLine, CommTimeoutFlagOverridesTheSetting) {
  TrainSettings s = settings();
  s.commTimeout = 30; // comm_timeout = 30
  EXPECT_EQ(effective({"--data", "d"}, s).commTimeout, 30);
  EXPECT_EQ(effective({"--data", "d", "--comm-timeout", "2.5"}, s).commTimeout,
            2.5);
  EXPECT_EQ(effective({"--data", "d", "--comm-timeout=0"}, s).commTimeout, 0);
  s.commTimeout = 0; // comm_timeout = 0: wait forever unless the flag says
  EXPECT_EQ(effective({"--data", "d"}, s).commTimeout, 0);
  EXPECT_EQ(effective({"--data", "d", "--comm-timeout", "7"}, s).commTimeout,
            7);
}

TEST(CommandLine, WarmupFlagOverridesTheSetting) {
  TrainSettings s = settings();
  s.warmupEpochs = 10; // warmup = 10
  EXPECT_EQ(effective({"--data", "d"}, s).warmupEpochs, 10);
  EXPECT_EQ(effective({"--data", "d", "--warmup", "0"}, s).warmupEpochs, 0);
  EXPECT_EQ(effective({"--data", "d", "--warmup=3"}, s).warmupEpochs, 3);
  EXPECT_EQ(usageErrorOf({"--data", "d", "--warmup", "-1"}),
            "--warmup expects a non-negative integer, got '-1'");
}

TEST(CommandLine, LinkBatchFlagOverridesTheSetting) {
  TrainSettings s = settings();
  s.linkBatch = 4096; // link_batch = 4096
  EXPECT_EQ(effective({"--data", "d"}, s).linkBatch, 4096);
  EXPECT_EQ(effective({"--data", "d", "--link-batch", "0"}, s).linkBatch, 0);
  EXPECT_EQ(effective({"--data", "d", "--link-batch=512"}, s).linkBatch, 512);
  EXPECT_EQ(usageErrorOf({"--data", "d", "--link-batch", "-1"}),
            "--link-batch expects a non-negative integer, got '-1'");
}

TEST(CommandLine, PrecisionFlagOverridesTheSetting) {
  TrainSettings s = settings();
  EXPECT_EQ(effective({"--data", "d"}, s).precision, "fp32");
  s.precision = "bf16"; // precision = bf16
  EXPECT_EQ(effective({"--data", "d"}, s).precision, "bf16");
  EXPECT_EQ(effective({"--data", "d", "--precision", "fp32"}, s).precision,
            "fp32");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--precision", "fp16"}),
            "--precision expects fp32 or bf16, got 'fp16'");
}

TEST(CommandLine, EveryOption) {
  TrainSettings s = settings();
  DriverOptions o = parseCommandLine({"--data",
                                      "d",
                                      "--epochs",
                                      "5",
                                      "--lr",
                                      "1e-3",
                                      "--seed",
                                      "42",
                                      "--threads=3",
                                      "--metrics",
                                      "m.jsonl",
                                      "--save",
                                      "s.safetensors",
                                      "--load",
                                      "l.safetensors",
                                      "--predict",
                                      "p.csv",
                                      "--eval-only",
                                      "--stats",
                                      "--gradcheck-nodes",
                                      "20",
                                      "--device",
                                      "2"},
                                     s);
  EXPECT_EQ(s.epochs, 5);
  EXPECT_EQ(s.lr, 1e-3);
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(o.overrides, (std::set<std::string>{"--epochs", "--lr", "--seed"}));
  EXPECT_EQ(o.threads, 3);
  EXPECT_EQ(o.metricsFile, "m.jsonl");
  EXPECT_EQ(o.saveFile, "s.safetensors");
  EXPECT_EQ(o.loadFile, "l.safetensors");
  EXPECT_EQ(o.predictFile, "p.csv");
  EXPECT_TRUE(o.evalOnly);
  EXPECT_TRUE(o.stats);
  EXPECT_EQ(o.gradcheckNodes, 20);
  EXPECT_EQ(o.device, 2);
  // Not given: -1 (the trainer then uses device 0, on CUDA builds only).
  EXPECT_EQ(parse({"--data", "d"}).device, -1);
}

// The optimizer reads the effective settings once: the flag's learning rate,
// not the train block's.
TEST(CommandLine, LrFlagReachesTheOptimizer) {
  CompiledProgram program;
  program.settings = settings();
  parseCommandLine({"--data", "d", "--lr", "0.5"}, program.settings);
  EXPECT_EQ(optimizerConfigOf(program).lr, 0.5);
  program.settings = settings();
  parseCommandLine({"--data", "d"}, program.settings);
  EXPECT_EQ(optimizerConfigOf(program).lr, 0.01);
}

TEST(CommandLine, HelpNeedsNothingElse) {
  EXPECT_TRUE(parse({"--help"}).help);
  EXPECT_TRUE(parse({"--eval-only", "--help"}).help);
}

TEST(CommandLine, DataIsOptionalForGeneratedDatasetsAndGradcheck) {
  TrainSettings generated = settings();
  generated.source = "generate";
  EXPECT_EQ(parse({}, generated).dataDir, "");
  EXPECT_TRUE(parse({"--gradcheck"}).gradcheck);
}

TEST(CommandLine, Errors) {
  EXPECT_EQ(usageErrorOf({"--data", "d", "--epochs", "abc"}),
            "--epochs expects an integer, got 'abc'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--epochs", "0"}),
            "--epochs expects a positive integer, got '0'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--epochs", "99999999999999999999"}),
            "--epochs expects an integer, got '99999999999999999999'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--lr", "fast"}),
            "--lr expects a number, got 'fast'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--lr", "-1"}),
            "--lr expects a positive number, got '-1'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--lr", "nan"}),
            "--lr expects a number, got 'nan'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--seed", "-3"}),
            "--seed expects a non-negative integer, got '-3'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--threads", "0"}),
            "--threads expects a positive integer, got '0'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--device", "-1"}),
            "--device expects a non-negative integer, got '-1'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--gradcheck-nodes", "1"}),
            "--gradcheck-nodes expects an integer >= 2, got '1'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--epcohs", "5"}),
            "unknown option '--epcohs'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "extra"}),
            "unexpected argument 'extra'");
  EXPECT_EQ(usageErrorOf({"--data"}), "--data expects a value (DIR)");
  EXPECT_EQ(usageErrorOf({"--data", "--epochs", "5"}),
            "--data expects a value (DIR)");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--stats=yes"}),
            "--stats takes no value");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--eval-only"}),
            "--eval-only needs --load FILE");
  EXPECT_EQ(usageErrorOf({"--eval-only", "--load", "f", "--gradcheck"}),
            "--eval-only and --gradcheck cannot be combined");
  EXPECT_EQ(usageErrorOf({"--epochs", "5"}),
            "--data DIR is required (the directory of dataset 'cora')");
}

TEST(CommandLine, ProgramName) {
  EXPECT_EQ(programName("./build/gcn"), "gcn");
  EXPECT_EQ(programName("gcn"), "gcn");
  EXPECT_EQ(programName(nullptr), "trainer");
}

TEST(CommandLine, UsageListsOptionsAndSettings) {
  CompiledProgram program;
  program.model = "GCN";
  program.sourceFile = "gcn_cora.gnn";
  program.settings = settings();
  program.settings.optimizer = "sgd";
  program.settings.momentum = 0.9;
  std::string usage = usageText("gcn", program);
  EXPECT_EQ(usage.rfind("usage: gcn [options]\n", 0), 0u) << usage;
  EXPECT_NE(usage.find("Trains model GCN (compiled from gcn_cora.gnn) on "
                       "dataset cora."),
            std::string::npos);
  for (const char *option :
       {"--help", "--data DIR", "--epochs N", "--lr X", "--seed N",
        "--threads N", "--metrics FILE", "--save FILE", "--load FILE",
        "--predict FILE", "--eval-only", "--stats", "--gradcheck",
        "--gradcheck-nodes N", "--sampler-threads N", "--device N"})
    EXPECT_NE(usage.find(option), std::string::npos) << option;
  EXPECT_NE(usage.find("optimizer  sgd lr 0.01 momentum 0.9 weight_decay 0"),
            std::string::npos)
      << usage;
  EXPECT_NE(usage.find("batches    full graph"), std::string::npos) << usage;
  EXPECT_NE(usage.find("epochs     200"), std::string::npos);
  EXPECT_NE(usage.find("seed       7"), std::string::npos);
  EXPECT_NE(usage.find("loss       cross_entropy\n"), std::string::npos)
      << usage;
  EXPECT_NE(usage.find("comm_timeout 60 s"), std::string::npos) << usage;
  // Settings the block leaves off have no line.
  for (const char *off : {"samplers", "offload", "memory_budget", "warmup"})
    EXPECT_EQ(usage.find(std::string("  ") + off + " "), std::string::npos)
        << off;
  program.settings.samplers = 2;
  program.settings.offloadDir = "spill";
  program.settings.memoryBudget = 1536;
  program.settings.warmupEpochs = 3;
  usage = usageText("gcn", program);
  for (const char *given : {"samplers   2\n", "offload    spill\n",
                            "memory_budget 1536 bytes\n", "warmup     3\n"})
    EXPECT_NE(usage.find(given), std::string::npos) << given << usage;
  program.settings.samplers = 0;
  program.settings.offloadDir.clear();
  program.settings.memoryBudget = 0;
  program.settings.warmupEpochs = 0;
  program.settings.commTimeout = 0;
  EXPECT_NE(usageText("gcn", program).find("comm_timeout none (wait forever)"),
            std::string::npos);
  // A sampled program lists its sampler.
  program.settings.fanouts = {10, -1};
  program.settings.batchSize = 64;
  program.settings.replace = true;
  usage = usageText("sage", program);
  EXPECT_NE(usage.find("batches    64 seeds, fanouts [10, -1] (layer 0 first), "
                       "with replacement"),
            std::string::npos)
      << usage;
}

TEST(CommandLine, OffloadTakesADirectoryAndABudget) {
  TrainSettings s = effective(
      {"--data", "d", "--offload", "/tmp/spill", "--memory-budget", "1.5G"});
  EXPECT_EQ(s.offloadDir, "/tmp/spill");
  EXPECT_EQ(s.memoryBudget, int64_t(3) << 29);
  EXPECT_EQ(usageErrorOf({"--data", "d", "--memory-budget", "1G"}),
            "--memory-budget needs --offload DIR (where the partitions that "
            "do not fit live)");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--offload", "x"}),
            "--offload needs --memory-budget SIZE (e.g. 1G): the partition "
            "count follows from it");
}

TEST(CommandLine, ByteSizesHaveBinaryUnits) {
  EXPECT_EQ(parseByteSize("--memory-budget", "4096"), 4096);
  EXPECT_EQ(parseByteSize("--memory-budget", "512M"), int64_t(512) << 20);
  EXPECT_EQ(parseByteSize("--memory-budget", "512MiB"), int64_t(512) << 20);
  EXPECT_EQ(parseByteSize("--memory-budget", "2g"), int64_t(2) << 30);
  EXPECT_EQ(parseByteSize("--memory-budget", "1GB"), int64_t(1) << 30);
  EXPECT_EQ(parseByteSize("--memory-budget", "1T"), int64_t(1) << 40);
  EXPECT_EQ(parseByteSize("--memory-budget", "1.5GiB"), int64_t(3) << 29);
  for (const char *bad : {"", "G", "1X", "1GG", "-1G", "0", "1 G", "nanG",
                          "infG", "0x10G", "1e30T"})
    EXPECT_THROW(parseByteSize("--memory-budget", bad), UsageError) << bad;
}

TEST(CommandLine, FoldIsANonNegativeIndex) {
  EXPECT_FALSE(parse({"--data", "d"}).fold.has_value());
  EXPECT_EQ(parse({"--data", "d", "--fold", "3"}).fold, 3);
  EXPECT_EQ(usageErrorOf({"--data", "d", "--fold", "-1"}),
            "--fold expects a non-negative integer, got '-1'");
  EXPECT_EQ(usageErrorOf({"--data", "d", "--fold", "x"}),
            "--fold expects an integer, got 'x'");
}
