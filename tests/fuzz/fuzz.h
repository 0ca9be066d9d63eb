// fuzz.h — a seeded mutation fuzzer for scalebench's input readers (docs/testing.md, "Fuzzing").
// Each target takes bytes (a dataset file, a sweep spec, a Slurm profile, a `train --config`
// file) and must either accept them or throw scalebench::Error: any other exception, a crash, a
// hang or (under the sanitizer build) a leak is a failure. Inputs are derived deterministically
// from (seed, target, iteration), so a failure names the command line that repeats it.
// Not libFuzzer: it needs no special compiler and runs for a bounded time inside ctest.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sbfuzz {

// splitmix64: small, fast, and the same on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n ? std::size_t(next() % n) : 0; }
  bool chance(int one_in) { return below(std::size_t(one_in)) == 0; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

 private:
  std::uint64_t s_;
};

using Bytes = std::string;

// Byte-level mutations of any input: flips, random and interesting bytes, 1-8 byte integers at
// random offsets, cut, duplicated or removed ranges, a splice from another seed.
void mutate_bytes(Bytes& b, Rng& rng, const std::vector<Bytes>& seeds);
// Text mutations of a TOML file: values replaced by edge cases (huge, negative, NaN, empty, long,
// other types), keys and sections swapped from the seeds' dictionary, lines duplicated or dropped,
// quoting and brackets broken; then sometimes a byte mutation on top.
void mutate_toml(Bytes& b, Rng& rng, const std::vector<Bytes>& seeds);

struct Target {
  std::string name;       // dataset | spec | profile | config
  std::string extension;  // of saved inputs
  // Seeds built in (valid inputs and structured variants), before the corpus folder's files.
  std::function<std::vector<Bytes>(Rng&)> seeds;
  std::function<void(Bytes&, Rng&, const std::vector<Bytes>&)> mutate;
  // Runs one input: returns normally (accepted) or throws scalebench::Error (refused).
  std::function<void(const Bytes&)> run;
};

Target dataset_target(const std::string& scratch);
Target spec_target();
Target profile_target();
Target config_target(const std::string& scratch);

}  // namespace sbfuzz
