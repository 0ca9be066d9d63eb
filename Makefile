# Makefile — the two commands of the quick start, and a few conveniences. A thin wrapper: the real
# build is CMake (CMakeLists.txt, CMakePresets.json); tests are ctest labels (DESIGN §8).
#   make demo   install what is missing, build, generate data, run the default CPU study
#   make test   install what is missing, build, run every test (GPU tests report skipped without a GPU)
#   make test-sanitize   a CPU-only ASan+UBSan build in build-sanitize/, its unit and mpi labels
BUILD ?= build
SAN_BUILD ?= build-sanitize
JOBS  ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps configure build test test-sanitize demo bench clean

all: build

deps:
	@tools/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) > $(BUILD).configure.log 2>&1 \
	  || { cat $(BUILD).configure.log; exit 1; }
	@grep -E "scalebench:" $(BUILD).configure.log || true

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 1200

# tools/sanitize/run.sh: configure, build, ctest -L 'unit|mpi' with the sanitizer options (docs/testing.md).
test-sanitize: deps
	@JOBS=$(JOBS) tools/sanitize/run.sh $(SAN_BUILD)

demo: build
	@tools/demo.sh $(BUILD)

bench: build
	@$(BUILD)/kernels/bench/sb_bench_kernels --benchmark_counters_tabular=true

clean:
	rm -rf $(BUILD) $(BUILD).configure.log $(SAN_BUILD) $(SAN_BUILD).configure.log
