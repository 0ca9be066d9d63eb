# Makefile — the two commands of the quick start, and a few conveniences. A thin wrapper: the real
# build is CMake (CMakeLists.txt, CMakePresets.json); tests are ctest labels (DESIGN §8).
#   make demo   install what is missing, build, generate data, run the default CPU study
#   make test   install what is missing, build, run every test (GPU tests report skipped without a GPU)
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps configure build test demo bench clean

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

demo: build
	@tools/demo.sh $(BUILD)

bench: build
	@$(BUILD)/kernels/bench/sb_bench_kernels --benchmark_counters_tabular=true

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
