// checkpoint.cpp — the checkpoint files (see checkpoint.h): a flat little-endian byte layout
// (this machine's; checkpoints are for resuming on the same cluster, not an exchange format),
// FNV-1a checksum of everything before it, atomic replace by rename.
#include "harness/train/checkpoint.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "kernels/common/check.h"
#include "kernels/common/write_file.h"

namespace scalebench {
namespace {

namespace fs = std::filesystem;
// 02: epochs and steps carry their checkpoint time and launch; the launches themselves.
// 03: the held-out checks of a run with a target (target.h); epochs carry the gradient noise scale,
//     the unfinished epoch its sums.
constexpr char kMagic[8] = {'S', 'B', 'C', 'K', 'P', 'T', '0', '3'};

std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

class Writer {
 public:
  template <class T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    pod(std::uint64_t(s.size()));
    out_ += s;
  }
  template <class T>
  void vec(const std::vector<T>& v) {
    pod(std::uint64_t(v.size()));
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void epoch(const EpochResult& e) {
    pod(e.epoch), pod(e.warmup), pod(e.wall_s), pod(e.images), pod(e.images_per_s), pod(e.lr), pod(e.train_loss);
    pod(e.val_loss), vec(e.val_iou), pod(e.val_miou), pod(e.val_accuracy), pod(e.time), pod(e.checkpoint_s);
    pod(e.segment), pod(e.grad_noise_trace), pod(e.grad_sq_norm), pod(e.b_simple);
  }
  void segment(const RunSegment& g) {
    pod(g.segment), str(g.started_utc), str(g.host), str(g.resumed_from), pod(g.first_epoch), pod(g.first_step);
    pod(g.first_global_step);
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::string file) : b_(bytes), file_(std::move(file)) {}
  template <class T>
  T pod() {
    T v;
    need(sizeof v);
    std::memcpy(&v, b_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = pod<std::uint64_t>();
    need(n);
    std::string s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = pod<std::uint64_t>();
    SB_REQUIRE(n <= (b_.size() - at_) / sizeof(T), "checkpoint {}: truncated (a list of {} values)", file_, n);
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), b_.data() + at_, n * sizeof(T));  // an empty vector's data() may be null
    at_ += n * sizeof(T);
    return v;
  }
  EpochResult epoch() {
    EpochResult e;
    e.epoch = pod<int>(), e.warmup = pod<bool>(), e.wall_s = pod<double>(), e.images = pod<std::int64_t>();
    e.images_per_s = pod<double>(), e.lr = pod<double>(), e.train_loss = pod<double>(), e.val_loss = pod<double>();
    e.val_iou = vec<double>(), e.val_miou = pod<double>(), e.val_accuracy = pod<double>(), e.time = pod<StepTimes>();
    e.checkpoint_s = pod<double>(), e.segment = pod<int>();
    e.grad_noise_trace = pod<double>(), e.grad_sq_norm = pod<double>(), e.b_simple = pod<double>();
    return e;
  }
  RunSegment segment() {
    RunSegment g;
    g.segment = pod<int>(), g.started_utc = str(), g.host = str(), g.resumed_from = str();
    g.first_epoch = pod<int>(), g.first_step = pod<std::int64_t>(), g.first_global_step = pod<std::int64_t>();
    return g;
  }
  bool done() const { return at_ == b_.size(); }

 private:
  void need(std::size_t n) const { SB_REQUIRE(n <= b_.size() - at_, "checkpoint {}: truncated", file_); }
  const std::string& b_;
  std::string file_;
  std::size_t at_ = 0;
};

// Test hooks (tests/mpi/resume_test.sh). SCALEBENCH_CHECKPOINT_CRASH=<phase> kills this process
// (SIGKILL: no clean-up runs) at that phase of the checkpoint write at optimizer step
// SCALEBENCH_CHECKPOINT_CRASH_STEP (any step when unset), so tests can prove a crash anywhere leaves
// the previous checkpoint in force. Phases: rank-file (half a rank file written), before-rename (a
// rank file complete under its temporary name), before-latest (every rank file in place, `latest`
// not yet moved).
std::int64_t g_writing_step = -1;
void crash_point(const char* phase) {
  const char* v = std::getenv("SCALEBENCH_CHECKPOINT_CRASH");
  if (!v || std::strcmp(v, phase) != 0) return;
  const char* at = std::getenv("SCALEBENCH_CHECKPOINT_CRASH_STEP");
  if (at && *at && std::atoll(at) != g_writing_step) return;
  ::kill(::getpid(), SIGKILL);
}

// temp + fsync + rename (write_file_atomically); rank 0's rank file passes the crash hooks.
void write_atomically(const std::string& path, const std::string& bytes, bool crash_midway) {
  AtomicWrite how{.who = "checkpoint"};
  if (crash_midway)
    how.stage = [](std::string_view stage) { crash_point(stage == "half-written" ? "rank-file" : "before-rename"); };
  write_file_atomically(path, bytes, how);
}

std::string step_name(std::int64_t global_step) { return fmt::format("step-{:010}", global_step); }

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  SB_REQUIRE(f, "checkpoint {}: cannot read: {}", path, std::strerror(errno));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

void kill_after_step_for_tests(std::int64_t global_step) {
  const char* v = std::getenv("SCALEBENCH_KILL_AFTER_STEP");
  if (v && *v && std::atoll(v) == global_step) ::kill(::getpid(), SIGKILL);
}

void write_rank_checkpoint(const std::string& dir, const RankCheckpoint& c) {
  g_writing_step = c.global_step;
  Writer w;
  w.bytes().append(kMagic, sizeof kMagic);
  w.str(c.config_text);
  w.pod(c.workers), w.pod(c.rank), w.pod(c.epoch), w.pod(c.step), w.pod(c.global_step);
  w.vec(c.params);
  w.pod(c.optimizer.steps), w.vec(c.optimizer.m), w.vec(c.optimizer.v);
  w.pod(std::uint64_t(c.buffers.size()));
  for (const auto& b : c.buffers) w.vec(b);
  w.pod(c.loss_sum), w.pod(c.wall_s), w.pod(c.lr), w.pod(c.loss_steps), w.pod(c.images), w.pod(c.nonfinite_skipped);
  w.pod(c.consecutive_skips), w.pod(c.time), w.pod(c.checkpoint_s), w.pod(c.segment), w.pod(c.noise);
  w.pod(std::uint64_t(c.epochs.size()));
  for (const auto& e : c.epochs) w.epoch(e);
  w.pod(std::uint64_t(c.epoch_steps.size()));
  for (const auto& s : c.epoch_steps) w.vec(s);
  w.vec(c.current_steps);
  w.pod(std::uint64_t(c.segments.size()));
  for (const auto& g : c.segments) w.segment(g);
  w.vec(c.target_checks);
  w.pod(fnv1a(w.bytes()));
  const fs::path step_dir = fs::path(dir) / step_name(c.global_step);
  std::error_code ec;
  fs::create_directories(step_dir, ec);
  SB_REQUIRE(!ec, "checkpoint: cannot create {}: {}", step_dir.string(), ec.message());
  static const double sleep_s = [] {
    const char* v = std::getenv("SCALEBENCH_CHECKPOINT_SLEEP_S");
    return v && *v ? std::atof(v) : 0.0;
  }();
  if (sleep_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s));
  write_atomically((step_dir / fmt::format("rank-{}.bin", c.rank)).string(), w.bytes(), c.rank == 0);
}

void commit_checkpoint(const std::string& dir, std::int64_t global_step) {
  g_writing_step = global_step;
  crash_point("before-latest");
  write_atomically((fs::path(dir) / "latest").string(), step_name(global_step) + "\n", false);
  // Keep the newest kCheckpointsKept complete checkpoints (a later, unfinished one is kept too).
  std::set<std::string> steps;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("step-", 0) == 0) steps.insert(e.path().filename());
  const std::string newest = step_name(global_step);
  int kept = 0;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (*it > newest) continue;
    if (++kept > kCheckpointsKept) fs::remove_all(fs::path(dir) / *it);
  }
}

std::optional<std::string> latest_checkpoint(const std::string& dir) {
  if (fs::exists(fs::path(dir) / "rank-0.bin")) return dir;
  const fs::path latest = fs::path(dir) / "latest";
  if (!fs::exists(latest)) return std::nullopt;
  std::string name = read_file(latest.string());
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  SB_REQUIRE(name.rfind("step-", 0) == 0 && name.find('/') == std::string::npos,
             "checkpoint {}: `latest` names '{}', not a step folder", dir, name);
  const fs::path step = fs::path(dir) / name;
  SB_REQUIRE(fs::is_directory(step), "checkpoint {}: `latest` names {}, which is missing", dir, step.string());
  return step.string();
}

std::vector<std::string> checkpoint_candidates(const std::string& dir) {
  const auto newest = latest_checkpoint(dir);
  if (!newest) return {};
  std::vector<std::string> out{*newest};
  if (*newest == dir) return out;  // a step folder named as such: that one only
  const std::string newest_name = fs::path(*newest).filename().string();
  std::set<std::string> older;
  for (const auto& e : fs::directory_iterator(dir))
    if (const std::string n = e.path().filename().string();
        e.is_directory() && n.rfind("step-", 0) == 0 && n < newest_name)
      older.insert(n);
  for (auto it = older.rbegin(); it != older.rend(); ++it) out.push_back((fs::path(dir) / *it).string());
  return out;
}

RankCheckpoint read_rank_checkpoint(const std::string& step_dir, int rank) {
  const std::string file = (fs::path(step_dir) / fmt::format("rank-{}.bin", rank)).string();
  SB_REQUIRE(fs::exists(file), "checkpoint {}: no file for rank {} ({}): was it written by fewer ranks?", step_dir,
             rank, file);
  const std::string bytes = read_file(file);
  SB_REQUIRE(bytes.size() >= sizeof kMagic + sizeof(std::uint64_t) &&
                 std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0,
             "checkpoint {}: not a scalebench checkpoint (or of another version)", file);
  std::uint64_t sum = 0;
  std::memcpy(&sum, bytes.data() + bytes.size() - sizeof sum, sizeof sum);
  const std::string body = bytes.substr(0, bytes.size() - sizeof sum);
  SB_REQUIRE(fnv1a(body) == sum, "checkpoint {}: checksum mismatch (the file is damaged); refusing to resume from it",
             file);
  Reader r(body, file);
  r.pod<std::array<char, sizeof kMagic>>();
  RankCheckpoint c;
  c.config_text = r.str();
  c.workers = r.pod<int>(), c.rank = r.pod<int>(), c.epoch = r.pod<int>();
  c.step = r.pod<std::int64_t>(), c.global_step = r.pod<std::int64_t>();
  c.params = r.vec<float>();
  c.optimizer.steps = r.pod<std::int64_t>(), c.optimizer.m = r.vec<float>(), c.optimizer.v = r.vec<float>();
  const auto buffers = r.pod<std::uint64_t>();
  SB_REQUIRE(buffers <= 1'000'000, "checkpoint {}: {} buffers is not plausible", file, buffers);
  for (std::uint64_t i = 0; i < buffers; ++i) c.buffers.push_back(r.vec<float>());
  c.loss_sum = r.pod<double>(), c.wall_s = r.pod<double>(), c.lr = r.pod<double>();
  c.loss_steps = r.pod<std::int64_t>(), c.images = r.pod<std::int64_t>(), c.nonfinite_skipped = r.pod<std::int64_t>();
  c.consecutive_skips = r.pod<int>(), c.time = r.pod<StepTimes>(), c.checkpoint_s = r.pod<double>();
  c.segment = r.pod<int>(), c.noise = r.pod<NoiseScaleSums>();
  const auto epochs = r.pod<std::uint64_t>();
  SB_REQUIRE(epochs <= 10'000'000, "checkpoint {}: {} epochs is not plausible", file, epochs);
  for (std::uint64_t i = 0; i < epochs; ++i) c.epochs.push_back(r.epoch());
  const auto lists = r.pod<std::uint64_t>();
  SB_REQUIRE(lists == epochs, "checkpoint {}: {} step lists for {} epochs", file, lists, epochs);
  for (std::uint64_t i = 0; i < lists; ++i) c.epoch_steps.push_back(r.vec<StepRow>());
  c.current_steps = r.vec<StepRow>();
  const auto segments = r.pod<std::uint64_t>();
  SB_REQUIRE(segments <= 1'000'000, "checkpoint {}: {} launches is not plausible", file, segments);
  for (std::uint64_t i = 0; i < segments; ++i) c.segments.push_back(r.segment());
  c.target_checks = r.vec<TargetCheck>();
  SB_REQUIRE(r.done(), "checkpoint {}: unexpected bytes after the record", file);
  SB_REQUIRE(c.rank == rank, "checkpoint {}: holds rank {}'s state, not rank {}'s", file, c.rank, rank);
  return c;
}

void check_compatible(const RankCheckpoint& c, const std::string& step_dir, const std::string& config_text,
                      int workers) {
  SB_REQUIRE(c.workers == workers, "checkpoint {}: written by a run of {} workers, this run has {}", step_dir,
             c.workers, workers);
  if (c.config_text == config_text) return;
  // Name the options that differ ("key=value" lines).
  auto lines = [](const std::string& t) {
    std::set<std::string> s;
    std::istringstream in(t);
    for (std::string l; std::getline(in, l);) s.insert(l);
    return s;
  };
  const auto a = lines(c.config_text), b = lines(config_text);
  std::string diff;
  for (const auto& l : b)
    if (!a.count(l)) {
      const std::string key = l.substr(0, l.find('='));
      std::string was;
      for (const auto& o : a)
        if (o.rfind(key + "=", 0) == 0) was = o.substr(key.size() + 1);
      diff += fmt::format("{}{} {} (checkpoint: {})", diff.empty() ? "" : ", ", key, l.substr(key.size() + 1), was);
    }
  fail_input(fmt::format("checkpoint {}: written by a run with other options: {}; refusing to resume", step_dir, diff));
}

void capture_model_state(Model& m, const Optimizer& opt, bool buffers, RankCheckpoint& c) {
  ComputeDevice& dev = m.device();
  const Tensor w = dev.to_host(m.params());
  c.params.assign(w.f32(), w.f32() + w.numel());
  c.optimizer = opt.state();
  if (!buffers) return;
  for (auto& [name, t] : m.buffers()) {
    const Tensor h = dev.to_host(*t);
    c.buffers.emplace_back(h.f32(), h.f32() + h.numel());
  }
}

void restore_model_state(const RankCheckpoint& c, Model& m, Optimizer& opt, bool buffers) {
  ComputeDevice& dev = m.device();
  SB_REQUIRE(std::int64_t(c.params.size()) == m.param_count(), "checkpoint: {} weights for a model of {}",
             c.params.size(), m.param_count());
  dev.upload(Tensor::view(const_cast<float*>(c.params.data()), {std::int64_t(c.params.size())}), m.params());
  opt.restore(c.optimizer);
  if (!buffers) return;
  auto bufs = m.buffers();
  SB_REQUIRE(bufs.size() == c.buffers.size(), "checkpoint: {} batch-norm buffers for a model of {}", c.buffers.size(),
             bufs.size());
  for (std::size_t i = 0; i < bufs.size(); ++i) {
    SB_REQUIRE(std::int64_t(c.buffers[i].size()) == bufs[i].second->numel(), "checkpoint: buffer {} has {} values, not {}",
               bufs[i].first, c.buffers[i].size(), bufs[i].second->numel());
    dev.upload(Tensor::view(const_cast<float*>(c.buffers[i].data()), {std::int64_t(c.buffers[i].size())}),
               *bufs[i].second);
  }
}

void capture_epoch(const EpochProgress& o, bool closed, bool steps, RankCheckpoint& c) {
  c.epoch = closed ? o.epoch.epoch + 1 : o.epoch.epoch;
  c.step = closed ? 0 : o.steps_done;
  if (closed) return;
  c.loss_sum = o.loss_sum, c.wall_s = o.epoch.wall_s, c.lr = o.epoch.lr, c.loss_steps = o.loss_steps;
  c.images = o.epoch.images, c.time = o.epoch.time, c.checkpoint_s = o.epoch.checkpoint_s;
  c.noise = o.noise;
  if (steps) c.current_steps = o.rows;
}

EpochProgress unfinished_epoch(const RankCheckpoint& c) {
  EpochProgress o;
  o.epoch.epoch = c.epoch;
  o.epoch.warmup = c.epoch == 1;
  o.steps_done = c.step;
  o.loss_sum = c.loss_sum, o.loss_steps = c.loss_steps, o.epoch.lr = c.lr, o.epoch.images = c.images;
  o.epoch.time = c.time;
  o.epoch.checkpoint_s = c.checkpoint_s;
  o.noise = c.noise;
  o.rows = c.current_steps;
  return o;
}

void capture_record(const TrainResult& r, const std::vector<std::vector<StepRow>>& epoch_steps, RankCheckpoint& c) {
  c.segments = r.segments;
  c.epochs = r.epochs, c.epoch_steps = epoch_steps;
  c.target_checks = r.target.checks();
}

void restore_record(const RankCheckpoint& c, TrainResult& r, std::vector<std::vector<StepRow>>& epoch_steps) {
  epoch_steps = c.epoch_steps;
  r.epochs = c.epochs;
  r.target.restore(c.target_checks);  // the best so far and the verdict continue
}

}  // namespace scalebench
