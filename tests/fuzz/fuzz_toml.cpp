// fuzz_toml.cpp — the TOML readers as fuzz targets (see fuzz.h): sweep specs (parse_spec, then
// expand: every point is validated there), Slurm cluster profiles (parse_profile) and
// `train --config` files (apply_config_file, which reads a path). Seeds: the shipped studies and
// profiles (read from the source tree) and a few config files written here.
#include <fstream>
#include <iterator>

#include "fuzz.h"
#include "harness/study/launch/slurm/profile.h"
#include "harness/study/spec/config_toml.h"
#include "harness/study/spec/spec.h"

namespace sbfuzz {
namespace {

std::vector<Bytes> files(const std::vector<std::string>& relative) {
  std::vector<Bytes> out;
  for (const auto& r : relative) {
    std::ifstream in(std::string(SB_SOURCE_DIR) + "/" + r, std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}

}  // namespace

Target spec_target() {
  Target t;
  t.name = "spec";
  t.extension = ".toml";
  t.seeds = [](Rng&) { return files({"studies/smoke.toml", "studies/cpu-demo.toml", "studies/gpu-unet.toml"}); };
  t.mutate = mutate_toml;
  t.run = [](const Bytes& b) {
    const auto spec = scalebench::study::parse_spec(b, "fuzz.toml");
    (void)scalebench::study::expand(spec);
  };
  return t;
}

Target profile_target() {
  Target t;
  t.name = "profile";
  t.extension = ".toml";
  t.seeds = [](Rng&) { return files({"slurm/profiles/local-test.toml", "slurm/profiles/generic-gpu.toml"}); };
  t.mutate = mutate_toml;
  t.run = [](const Bytes& b) { (void)scalebench::study::slurm::parse_profile(b, "fuzz.toml"); };
  return t;
}

Target config_target(const std::string& scratch) {
  Target t;
  t.name = "config";
  t.extension = ".toml";
  t.seeds = [](Rng&) {
    return std::vector<Bytes>{
        "model = \"unet:depth=2,base=4\"\nepochs = 2\nbatch = 4\nlr = 0.05\nlr_scaling = \"sqrt\"\n"
        "warmup_epochs = 0.5\noptimizer = \"adamw\"\nclass_weights = \"1,2,3\"\nthreads = 1\n",
        "[train]\nmodel = \"vgg11:width=0.0625\"\nstrategy = \"ring\"\ncompression = \"bf16\"\nbucket_mb = 2\n"
        "comm_timeout = 60\nseed = 7\nrepetition = 2\nscaling = \"strong\"\nstudy = \"s\"\nmax_steps = 3\n",
        "backend = \"cuda\"\nprecision = \"bf16\"\nlayout = \"NHWC\"\ncudnn_workspace_mib = 64\ndevices = 2\n"
        "strategy = \"mirrored\"\nval_fraction = 0.2\nstaleness = 2\nranks_per_node = 2\npreemptible = true\n"};
  };
  t.mutate = mutate_toml;
  t.run = [scratch](const Bytes& b) {
    const std::string path = scratch + "/config.toml";
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(b.data(), std::streamsize(b.size()));
    scalebench::TrainConfig train;
    train.data = "data.h5";  // the one option every run needs and these files rarely set
    scalebench::record::RunConfig run;
    scalebench::study::apply_config_file(path, train, run, {});
    train.validate();
  };
  return t;
}

}  // namespace sbfuzz
