# Thin wrapper over CMake: the two commands in README.md.
#   make run   install what it needs, build gnnc and its runtime, run the main example
#   make test  install dependencies, build everything, run every test
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps deps-run configure build run test fuzz clean
all: build

deps:
	@tools/install-deps.sh all

deps-run:
	@tools/install-deps.sh run

$(BUILD)/build.ninja: | deps-run
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

# Always configures: a tree that `make run` configured with the run packages
# only then finds the test packages `deps` has just installed (GoogleTest).
configure: deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD)

# Compile the GCN example to a trainer and train it on the bundled Cora; the
# last lines are the final and best-validation test accuracies. Builds only
# gnnc and libgnnrt.a (gnnc-run-depends), not the tests or the CUDA parts,
# after installing only the packages that needs.
run: deps-run $(BUILD)/build.ninja
	cmake --build $(BUILD) --target gnnc-run-depends
	$(BUILD)/bin/gnnc examples/gcn_cora.gnn -o $(BUILD)/gcn_cora
	$(BUILD)/gcn_cora --data examples/data/cora

test: build
	@test/run-tests.sh $(BUILD)

# TARGET=frontend|readers: libFuzzer targets built with clang (fuzz-build/);
# TARGET=pipeline: mutants of the bundled programs through the built gnnc.
ifeq ($(TARGET),pipeline)
fuzz: build
	tools/fuzz/mutate_pipeline.py --gnnc $(BUILD)/bin/gnnc --seconds $(or $(SECONDS),60)
else
fuzz: deps
	FUZZ_TARGET=$(or $(TARGET),frontend) tools/fuzz/run-fuzzer.sh $(or $(SECONDS),60)
endif

clean:
	rm -rf $(BUILD)
