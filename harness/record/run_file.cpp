// run_file.cpp — run file layout, write and read (see run_file.h).
#include "harness/record/run_file.h"

#include <cmath>

#include "harness/record/context.h"
#include "harness/record/h5io.h"
#include "kernels/common/check.h"

namespace scalebench::record {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (!s.empty() && pos <= s.size()) {
    const auto comma = s.find(',', pos);
    out.push_back(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

RunFile make_run_file() {
  RunFile f;
  f.writer = std::string("scalebench ") + SCALEBENCH_VERSION;
  f.created_utc = utc_now();
  using K = Column::Kind;
  for (const char* c : {"epoch", "warmup"}) f.epochs.add(c, K::i64);
  f.epochs.add("wall_s", K::f64);
  f.epochs.add("images", K::i64);
  for (const char* c : {"images_per_s", "lr", "train_loss", "val_loss", "val_miou", "val_accuracy", "checkpoint_s",
                        "grad_noise_trace", "grad_sq_norm", "b_simple"})
    f.epochs.add(c, K::f64);
  f.epochs.add("segment", K::i64);
  for (const char* c : {"epoch", "step"}) f.steps.add(c, K::i64);
  for (const char* c : {"loss", "t_data", "t_fwd", "t_bwd", "t_comm_exposed", "t_update", "t_total", "t_checkpoint"})
    f.steps.add(c, K::f64);
  f.steps.add("segment", K::i64);
  f.segments.add("segment", K::i64);
  for (const char* c : {"started_utc", "host", "resumed_from"}) f.segments.add(c, K::str);
  for (const char* c : {"first_epoch", "first_step", "first_global_step"}) f.segments.add(c, K::i64);
  return f;
}

void set_segments(RunFile& f, const std::vector<RunSegment>& segments) {
  Table t;
  for (std::size_t i = 0; i < f.segments.columns().size(); ++i) t.add(f.segments.columns()[i].name, f.segments.columns()[i].kind);
  for (const RunSegment& g : segments) {
    Attrs r;
    r.set("segment", g.segment);
    r.set("started_utc", g.started_utc);
    r.set("host", g.host);
    r.set("resumed_from", g.resumed_from);
    r.set("first_epoch", g.first_epoch);
    r.set("first_step", std::int64_t(g.first_step));
    r.set("first_global_step", std::int64_t(g.first_global_step));
    t.append(r);
  }
  f.segments = std::move(t);
}

void append_epoch(RunFile& f, const EpochResult& e, const std::vector<StepRow>& steps, bool segmentation) {
  Attrs row;
  row.set("epoch", e.epoch);
  row.set("warmup", e.warmup);
  row.set("wall_s", e.wall_s);
  row.set("images", std::int64_t(e.images));
  row.set("images_per_s", e.images_per_s);
  row.set("lr", e.lr);
  row.set("train_loss", e.train_loss);
  row.set("val_loss", e.val_loss);
  row.set("val_miou", segmentation ? e.val_miou : kNaN);
  row.set("val_accuracy", e.val_accuracy);
  row.set("checkpoint_s", e.checkpoint_s);
  row.set("grad_noise_trace", e.grad_noise_trace);
  row.set("grad_sq_norm", e.grad_sq_norm);
  row.set("b_simple", e.b_simple);
  row.set("segment", e.segment);
  f.epochs.append(row);
  append_steps(f, steps);
  f.iou.push_back(e.val_iou);
}

void append_steps(RunFile& f, const std::vector<StepRow>& steps) {
  for (const StepRow& s : steps) {
    Attrs r;
    r.set("epoch", s.epoch);
    r.set("step", std::int64_t(s.step));
    r.set("loss", s.loss);
    r.set("t_data", s.time.data);
    r.set("t_fwd", s.time.fwd);
    r.set("t_bwd", s.time.bwd);
    r.set("t_comm_exposed", s.time.comm_exposed);
    r.set("t_update", s.time.update);
    r.set("t_total", s.time.total());
    r.set("t_checkpoint", s.checkpoint_s);
    r.set("segment", s.segment);
    f.steps.append(r);
  }
}

void write_run_file(const std::string& path, RunFile& f) { h5::write_image_atomically(path, run_file_image(path, f)); }

std::vector<unsigned char> run_file_image(const std::string& path, RunFile& f) {
  f.updated_utc = utc_now();
  return h5::build_file_image(path, [&](hid_t file) {
    Attrs root;
    root.set("schema_version", f.schema_version);
    root.set("writer", f.writer);
    root.set("created_utc", f.created_utc);
    root.set("updated_utc", f.updated_utc);
    root.set("status", f.status);
    root.set("error", f.error);
    root.set("pid", f.owner.pid);
    root.set("pid_start", f.owner.pid_start);
    root.set("host", f.owner.host);
    root.set("boot_id", f.owner.boot_id);
    root.set("slurm_job_id", f.owner.slurm_job);
    root.set("heartbeat_s", f.owner.heartbeat_s);
    h5::write_attrs(file, root, path);
    h5::write_attrs(h5::create_group(file, "config", path).get(), f.config, path + " /config");
    h5::write_attrs(h5::create_group(file, "context", path).get(), f.context, path + " /context");
    h5::write_table(file, "epochs", f.epochs, path);
    h5::write_table(file, "steps", f.steps, path);
    h5::write_table(file, "segments", f.segments, path);
    h5::H5Id eval = h5::create_group(file, "eval", path);
    std::size_t classes = f.class_names.size();
    for (const auto& r : f.iou) classes = std::max(classes, r.size());
    std::vector<double> m(f.iou.size() * classes, kNaN);
    for (std::size_t e = 0; e < f.iou.size(); ++e)
      for (std::size_t c = 0; c < f.iou[e].size(); ++c) m[e * classes + c] = f.iou[e][c];
    h5::write_matrix(eval.get(), "iou", f.iou.size(), classes, m, path + " /eval");
    Attrs names;
    names.set("class_names", join(f.class_names));
    h5::write_attrs(eval.get(), names, path + " /eval");
    h5::write_attrs(h5::create_group(file, "summary", path).get(), f.summary, path + " /summary");
  });
}

RunFile read_run_file(const std::string& path) {
  h5::H5Id file = h5::open_for_read(path);
  RunFile f;
  const Attrs root = h5::read_attrs(file.get(), path);
  SB_REQUIRE(root.has("schema_version") && root.has("status"),
             "{}: not a scalebench run file (no schema_version/status attributes)", path);
  f.schema_version = root.integer("schema_version");
  SB_REQUIRE(f.schema_version <= kSchemaVersion,
             "{}: schema_version {} is newer than this scalebench reads ({}); update scalebench", path,
             f.schema_version, kSchemaVersion);
  f.writer = root.str("writer");
  f.created_utc = root.str("created_utc");
  f.updated_utc = root.str("updated_utc");
  f.status = root.str("status");
  f.error = root.str("error");
  f.owner.pid = root.integer("pid");
  f.owner.pid_start = root.integer("pid_start");
  f.owner.host = root.str("host");
  f.owner.boot_id = root.str("boot_id");
  f.owner.slurm_job = root.str("slurm_job_id");
  f.owner.heartbeat_s = root.integer("heartbeat_s");
  if (auto g = h5::open_group(file.get(), "config", path); g.valid()) f.config = h5::read_attrs(g.get(), path + " /config");
  if (auto g = h5::open_group(file.get(), "context", path); g.valid())
    f.context = h5::read_attrs(g.get(), path + " /context");
  if (auto g = h5::open_group(file.get(), "summary", path); g.valid())
    f.summary = h5::read_attrs(g.get(), path + " /summary");
  if (h5::exists(file.get(), "epochs")) f.epochs = h5::read_table(file.get(), "epochs", path);
  if (h5::exists(file.get(), "steps")) f.steps = h5::read_table(file.get(), "steps", path);
  if (h5::exists(file.get(), "segments")) f.segments = h5::read_table(file.get(), "segments", path);
  if (auto eval = h5::open_group(file.get(), "eval", path); eval.valid()) {
    f.class_names = split(h5::read_attrs(eval.get(), path + " /eval").str("class_names"));
    if (h5::exists(eval.get(), "iou")) {
      std::size_t rows = 0, cols = 0;
      const auto m = h5::read_matrix(eval.get(), "iou", rows, cols, path + " /eval");
      for (std::size_t r = 0; r < rows; ++r) f.iou.emplace_back(m.begin() + long(r * cols), m.begin() + long((r + 1) * cols));
    }
  }
  return f;
}

}  // namespace scalebench::record
