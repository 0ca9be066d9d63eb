// main.cpp — the `scalebench` command line (CLI11 subcommands, DESIGN §7). Parses and validates
// options, hands them to the rooms, and turns any scalebench::Error into one line on stderr and a
// non-zero exit. Holds no training or data logic of its own.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "harness/data/particle_gen.h"
#include "harness/train/trainer.h"
#include "kernels/common/check.h"

namespace {

using scalebench::TrainConfig;

void add_datagen(CLI::App& app, scalebench::data::GenConfig& g, std::string& out, std::string& task) {
  auto* cmd = app.add_subcommand("datagen", "Generate a synthetic particle-image dataset (HDF5)");
  cmd->add_option("--task", task, "segmentation (background/shower/track per pixel) or classification (5 particles)")
      ->check(CLI::IsMember({"segmentation", "classification"}));
  cmd->add_option("--n", g.n, "Number of images")->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd->add_option("--size", g.size, "Image side in pixels")->check(CLI::Range(16, 4096));
  cmd->add_option("--seed", g.seed, "Generator seed (sample i depends only on seed and i)");
  cmd->add_option("-o,--output", out, "Output .h5 file (written atomically)")->required();
}

void add_train(CLI::App& app, TrainConfig& c) {
  auto* cmd = app.add_subcommand("train", "Train one model on one configuration and report loss, IoU/accuracy, images/s");
  cmd->set_config("--config", "", "TOML file with any of these options (keys as the long option names)");
  cmd->add_option("--model", c.model, "Model spec, e.g. unet:depth=4,base=16 or vgg11:width=0.25,bn=1")
      ->capture_default_str();
  cmd->add_option("--data", c.data, "HDF5 dataset from `scalebench datagen`")->required();
  cmd->add_option("--strategy", c.strategy, "single (more strategies arrive with the distributed harness)")
      ->capture_default_str();
  cmd->add_option("--backend", c.backend, "cpu")->capture_default_str();
  cmd->add_option("--precision", c.precision, "fp32")->capture_default_str();
  cmd->add_option("--epochs", c.epochs, "Passes over the training split")->capture_default_str();
  cmd->add_option("--batch", c.batch, "Batch size per device")->capture_default_str();
  cmd->add_option("--lr", c.lr, "Base learning rate")->capture_default_str();
  cmd->add_option("--lr-scaling", c.lr_scaling, "none|linear|sqrt in the device count")->capture_default_str();
  cmd->add_option("--warmup-epochs", c.warmup_epochs, "Linear warm-up length (may be fractional)")
      ->capture_default_str();
  cmd->add_option("--lr-decay", c.lr_decay, "cosine|constant after warm-up")->capture_default_str();
  cmd->add_option("--optimizer", c.optimizer, "sgd|adamw")->capture_default_str();
  cmd->add_option("--momentum", c.momentum, "SGD momentum")->capture_default_str();
  cmd->add_option("--weight-decay", c.weight_decay, "L2 (sgd) or decoupled (adamw) weight decay")
      ->capture_default_str();
  cmd->add_option("--val-fraction", c.val_fraction, "Fraction held out (the end of the file)")->capture_default_str();
  cmd->add_option("--class-weights", c.class_weights, "auto|none|w0,w1,... for the loss")->capture_default_str();
  cmd->add_option("--seed", c.seed, "Run seed (weights, shuffling, dropout)")->capture_default_str();
  cmd->add_flag("--reference-kernels", c.reference_kernels, "Use the slow double-accumulating reference kernels");
  cmd->add_option("--threads", c.threads, "BLAS threads (0: all cores)")->capture_default_str();
  cmd->add_option("--max-steps", c.max_steps, "Stop each epoch after this many steps (0: full epoch)")
      ->capture_default_str();
  cmd->add_option("--progress-seconds", c.progress_seconds, "Step progress line interval")->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"scalebench — HPC scaling studies of hand-written U-Net and VGG training"};
  app.require_subcommand(1);
  // One line per failure, like every other scalebench error (CLI11's default adds a second line).
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string("scalebench: error: ") + e.what() + "\n"; });
  app.set_version_flag("--version", std::string("scalebench ") + SCALEBENCH_VERSION + " (" + SCALEBENCH_GIT_SHA + ")");
  scalebench::data::GenConfig gen;
  std::string gen_out, gen_task = "segmentation";
  TrainConfig train_cfg;
  add_datagen(app, gen, gen_out, gen_task);
  add_train(app, train_cfg);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (app.got_subcommand("datagen")) {
      gen.task = gen_task == "segmentation" ? scalebench::data::Task::segmentation
                                            : scalebench::data::Task::classification;
      scalebench::data::write_dataset(gen, gen_out);
      std::cout << "datagen: wrote " << gen.n << " " << gen_task << " images of " << gen.size << "x" << gen.size
                << " to " << gen_out << "\n";
    } else if (app.got_subcommand("train")) {
      scalebench::train(train_cfg, std::cout);
    }
  } catch (const scalebench::Error& e) {
    std::cout.flush();
    std::fprintf(stderr, "scalebench: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::fprintf(stderr, "scalebench: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
