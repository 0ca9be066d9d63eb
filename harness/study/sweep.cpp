// sweep.cpp — `scalebench sweep`: the spec's checks that hold for every launcher, the study-folder
// lock, then the launcher (see sweep.h).
#include "harness/study/sweep.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "harness/data/dataset.h"
#include "harness/data/particle_gen.h"
#include "harness/record/context.h"
#include "harness/record/liveness.h"
#include "kernels/common/check.h"
#include "harness/train/model_check.h"
#include "models/spec.h"

namespace scalebench::study {
namespace {

// flock(2) on <output>/.lock for this process's lifetime in the sweep. The kernel drops the lock
// when the holder dies however it dies, so a stale .lock file never blocks. Close-on-exec: the
// points' processes do not hold it.
class StudyLock {
 public:
  explicit StudyLock(const std::string& output) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(output, ec);
    SB_REQUIRE(!ec, "{}: cannot create the folder: {}", output, ec.message());
    const std::string path = (fs::path(output) / ".lock").string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    SB_REQUIRE(fd_ >= 0, "{}: cannot open the study lock: {}", path, std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      std::string holder(256, '\0');
      const ssize_t n = ::pread(fd_, holder.data(), holder.size() - 1, 0);
      holder.resize(n > 0 ? std::size_t(n) : 0);
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
      ::close(fd_);
      SB_REQUIRE(err != EWOULDBLOCK, "{}: another sweep is running into this study folder ({}); wait for it to end, "
                 "or give this spec another [study] output", output, holder.empty() ? "holder unknown" : holder);
      SB_REQUIRE(false, "{}: cannot lock: {}", path, std::strerror(err));
    }
    const record::RunOwner me = record::this_process(0);
    const std::string who = fmt::format("pid {} on host {}, since {}\n", me.pid, me.host, record::utc_now());
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, who.data(), who.size(), 0) < 0) {
      // Only the holder's description is lost; the lock itself holds.
    }
  }
  ~StudyLock() { ::close(fd_); }  // releases the lock; the file stays (removing it would race a new holder)
  StudyLock(const StudyLock&) = delete;
  StudyLock& operator=(const StudyLock&) = delete;

 private:
  int fd_ = -1;
};

// Every model of the sweep against the sweep's data (the file's header, or the recipe's when it is
// still to be generated): its task (a vgg model on segmentation labels fails every point; the
// check train makes, model_check.h) and its options built for the data's shape, so that an
// unknown or out-of-range model option or a model of another task fails here, before a dry run
// says all is well or a real sweep starts its points (each point would fail alone).
void check_models(const SweepSpec& spec) {
  data::DatasetInfo info;
  if (std::filesystem::exists(spec.data)) {
    const data::Dataset ds(spec.data);
    info = ds.info();
  } else {
    const data::GenConfig& g = *spec.generate;
    info.task = g.task;
    info.n = g.n;
    info.height = info.width = g.size;
    info.classes = data::generated_classes(g.task);
  }
  const DataShape shape{info.channels, info.height, info.width, info.classes};
  for (const std::string& model : spec.models) try {
      const ModelSpec m = parse_model_spec(model);
      check_model_fits(m, info, spec.data);
      canonical_spec(m, shape);
    } catch (const Error& e) {
      fail_input(fmt::format("{}: sweep.models: {}", spec.source, e.what()));
    }
}

}  // namespace

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& opt, std::ostream& out) {
  namespace fs = std::filesystem;
  SB_REQUIRE(spec.generate || fs::exists(spec.data), "{}: dataset.path: {}: no such file (paths are relative to the "
             "current folder)", spec.data_where.empty() ? spec.source : spec.data_where, spec.data);
  check_models(spec);
  const auto launcher = make_launcher(opt.launcher.value_or(spec.launcher));
  if (opt.dry_run) return launcher->run(spec, opt, out);
  const StudyLock lock(spec.output);  // local: the whole sweep; slurm: the submission
  return launcher->run(spec, opt, out);
}

}  // namespace scalebench::study
