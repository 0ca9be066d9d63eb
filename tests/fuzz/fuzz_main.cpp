// fuzz_main.cpp — sb_fuzz: replays the regression corpus, then mutates seeds for a bounded number of
// iterations and time, per target (see fuzz.h and docs/testing.md).
//   sb_fuzz [--target all|dataset|spec|profile|config] [--seed N] [--iterations N] [--seconds S]
//           [--corpus DIR] [--replay-only] [--only I] [--save DIR] [--input-timeout S]
// --corpus DIR: DIR/<target>/* are replayed first and join the seeds (default tests/fuzz/corpus).
// --only I: run just iteration I (to repeat a reported failure). --save DIR: each failing input is
// written there, and the input being run is kept as DIR/current-<target> so that a crash or a hang
// leaves it behind. Exit 0 when every input was accepted or refused with scalebench::Error.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "fuzz.h"
#include "kernels/common/check.h"

namespace fs = std::filesystem;
using namespace sbfuzz;

namespace {

struct Options {
  std::string target = "all", corpus = std::string(SB_SOURCE_DIR) + "/tests/fuzz/corpus", save;
  std::uint64_t seed = 1;
  long iterations = 1000, only = -1;
  double seconds = 15, input_timeout = 20;
  bool replay_only = false;
};

// The input being run, for the watchdog: a hang is reported with what repeats it, then the process
// ends (a hung HDF5 call cannot be interrupted).
std::mutex g_mu;
std::string g_current = "(none)";
std::atomic<std::int64_t> g_started_ms{0};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void watchdog(double limit_s) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::int64_t t0 = g_started_ms.load();
    if (t0 > 0 && now_ms() - t0 > std::int64_t(limit_s * 1000)) {
      std::lock_guard<std::mutex> lock(g_mu);
      std::fprintf(stderr, "sb_fuzz: HANG: %s ran longer than %.0f s\n", g_current.c_str(), limit_s);
      std::fflush(stderr);
      std::_Exit(3);
    }
  }
}

std::uint64_t mix(std::uint64_t a, const std::string& s) {
  for (unsigned char c : s) a = (a ^ c) * 0x100000001b3ULL;
  return a;
}

struct Counts {
  long inputs = 0, accepted = 0, refused = 0, failures = 0;
  double slowest_s = 0;
  std::string slowest;  // how to repeat the slowest input
};

void write(const fs::path& p, const Bytes& b) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(b.data(), std::streamsize(b.size()));
}

// Runs one input; `what` says how to repeat it.
void run_one(const Target& t, const Bytes& input, const std::string& what, const Options& o, Counts& c) {
  if (!o.save.empty()) write(fs::path(o.save) / ("current-" + t.name + t.extension), input);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_current = what;
  }
  const std::int64_t t0 = now_ms();
  g_started_ms = t0;
  std::string failure;
  try {
    t.run(input);
    ++c.accepted;
  } catch (const scalebench::Error& e) {
    ++c.refused;
    const std::string msg = e.what();
    if (msg.empty() || msg.find('\n') != std::string::npos) failure = "an error that is not one line: " + msg;
  } catch (const std::exception& e) {
    failure = std::string("a non-scalebench exception: ") + e.what();
  } catch (...) {
    failure = "an unknown exception";
  }
  g_started_ms = 0;
  ++c.inputs;
  if (const double s = double(now_ms() - t0) / 1000; s > c.slowest_s) c.slowest_s = s, c.slowest = what;
  if (failure.empty()) return;
  ++c.failures;
  std::fprintf(stderr, "sb_fuzz: FAIL: %s: %s\n", what.c_str(), failure.c_str());
  if (!o.save.empty()) write(fs::path(o.save) / ("fail-" + t.name + "-" + std::to_string(c.failures) + t.extension), input);
}

Counts fuzz(const Target& t, const Options& o) {
  Counts c;
  const auto start = std::chrono::steady_clock::now();
  Rng seed_rng(mix(o.seed, t.name + "/seeds"));
  std::vector<Bytes> seeds = t.seeds(seed_rng);
  // The regression corpus: replayed as is, then mutated like the built-in seeds.
  std::vector<fs::path> corpus;
  const fs::path dir = fs::path(o.corpus) / t.name;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) corpus.push_back(e.path());
  std::sort(corpus.begin(), corpus.end());
  if (o.only < 0) {
    for (const auto& p : corpus) {
      std::ifstream in(p, std::ios::binary);
      seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      run_one(t, seeds.back(), "corpus " + p.string(), o, c);
    }
    for (std::size_t i = 0; i < seeds.size() - corpus.size(); ++i)
      run_one(t, seeds[i], t.name + " built-in seed " + std::to_string(i), o, c);
  }
  const long first = o.only >= 0 ? o.only : 0, last = o.replay_only ? 0 : o.only >= 0 ? o.only + 1 : o.iterations;
  for (long i = first; i < last; ++i) {
    if (o.only < 0 && std::chrono::steady_clock::now() - start > std::chrono::duration<double>(o.seconds)) break;
    Rng rng(mix(o.seed, t.name + "/" + std::to_string(i)));
    Bytes input = rng.pick(seeds);
    t.mutate(input, rng, seeds);
    run_one(t, input,
            fmt::format("sb_fuzz --target {} --seed {} --only {} --corpus {}", t.name, o.seed, i, o.corpus), o, c);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("sb_fuzz %-8s %6ld inputs (%zu corpus): %ld accepted, %ld refused with an error, %ld failed, %.1f s\n"
              "  slowest input %.2f s: %s\n",
              t.name.c_str(), c.inputs, corpus.size(), c.accepted, c.refused, c.failures, s, c.slowest_s,
              c.slowest.c_str());
  std::fflush(stdout);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "sb_fuzz: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--target") o.target = value();
    else if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--iterations") o.iterations = std::stol(value());
    else if (a == "--seconds") o.seconds = std::stod(value());
    else if (a == "--corpus") o.corpus = value();
    else if (a == "--only") o.only = std::stol(value());
    else if (a == "--save") o.save = value();
    else if (a == "--input-timeout") o.input_timeout = std::stod(value());
    else if (a == "--replay-only") o.replay_only = true;
    else {
      std::fprintf(stderr, "sb_fuzz: unknown option %s (see tests/fuzz/fuzz_main.cpp)\n", a.c_str());
      return 2;
    }
  }
  const fs::path scratch = fs::temp_directory_path() / ("sb_fuzz_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  if (!o.save.empty()) fs::create_directories(o.save);
  std::thread(watchdog, o.input_timeout).detach();

  std::vector<Target> targets = {dataset_target(scratch.string()), spec_target(), profile_target(),
                                 config_target(scratch.string())};
  long failures = 0;
  bool known = false;
  for (const Target& t : targets) {
    if (o.target != "all" && o.target != t.name) continue;
    known = true;
    failures += fuzz(t, o).failures;
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  if (!known) {
    std::fprintf(stderr, "sb_fuzz: unknown target %s (all|dataset|spec|profile|config)\n", o.target.c_str());
    return 2;
  }
  return failures ? 1 : 0;
}
