// write_file.h — the one way scalebench replaces a file whole: the bytes go to a temporary file
// beside it (path + ".tmp"), are fsync'ed, and the temporary file is rename()d over `path`; then the
// folder is fsync'ed. A reader (or a crash, or SIGKILL at any instant) therefore sees the previous
// complete file or the new complete one, never half of one. A stale .tmp left by a killed writer
// is truncated by the next write. Every failure — a full disk included — removes the temporary file
// and throws scalebench::Error naming it: "[who: ]cannot write <path>.tmp (N bytes): disk full (No
// space left on device)". POSIX calls only: a thread may call it while another uses HDF5 (the run
// file's stop mark does, harness/record/stop_mark.h).
// Not here: what the bytes are (HDF5 images, checkpoints, JSON, scripts are built by their writers).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace scalebench {

struct AtomicWrite {
  // The writer, at the head of an error line ("checkpoint", "--trace"); empty: the line starts with
  // "cannot ...", which names the file.
  std::string who = {};
  // false: no fsyncs, the rename alone — visible to every reader at once, but it may not survive a
  // power loss (for a mark that must land within a second, not for results).
  bool durable = true;
  // true: the temporary file's name also carries the host and the process (path.tmp.HOST.PID), so
  // writers on several hosts of one shared file system never share a temporary file (the NCCL
  // unique-id file). Not with commit_temp_file, whose writer named the temporary file itself.
  bool per_writer_temp = false;
  // Test hook (crash tests): called with "half-written" once half the bytes are written, and with
  // "before-rename" once all are written and synced.
  std::function<void(std::string_view stage)> stage = {};
};

void write_file_atomically(const std::string& path, std::string_view bytes, const AtomicWrite& how = {});

// The second half alone, for a writer that fills temp_path_for(path) itself (HDF5 writing a file
// sample by sample): fsyncs it (when durable), renames it over `path` and fsyncs the folder; on
// failure removes it and throws naming both names.
std::string temp_path_for(const std::string& path);
void commit_temp_file(const std::string& path, const AtomicWrite& how = {});

// An errno value as an error line says it: "disk full (No space left on device)" for ENOSPC,
// "disk quota exceeded (...)" for EDQUOT, strerror otherwise.
std::string errno_text(int err);

}  // namespace scalebench
