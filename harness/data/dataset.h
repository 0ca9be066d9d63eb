// dataset.h — the HDF5 image dataset (schema: docs/data-format.md): validated on open, read one
// sample or a batch at a time through chunked per-sample hyperslab reads, so a worker touches only
// its shard. Labels are returned as int32 regardless of their on-disk integer type.
// Not thread-safe: one Dataset per reading thread (HDF5 without thread-safety build).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace scalebench::data {

enum class Task { segmentation, classification };
const char* to_string(Task t);

struct DatasetInfo {
  Task task = Task::segmentation;
  std::int64_t n = 0;           // samples
  int channels = 1, height = 0, width = 0;
  int classes = 0;
  std::vector<std::string> class_names;
  std::int64_t label_numel() const { return task == Task::segmentation ? std::int64_t{height} * width : 1; }
  std::int64_t image_numel() const { return std::int64_t{channels} * height * width; }
};

class Dataset {
 public:
  // Opens and validates (datasets present, ranks, dtypes, sizes agree, every label in range).
  // Throws scalebench::Error with one line naming the file and what is wrong.
  explicit Dataset(const std::string& path);
  ~Dataset();
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;

  const DatasetInfo& info() const { return info_; }
  const std::string& path() const { return path_; }

  // images: [indices.size(), C, H, W] float32; labels: [indices.size(), H, W] (segmentation)
  // or [indices.size()] (classification) int32. Caller-allocated.
  void read(const std::vector<std::int64_t>& indices, float* images, std::int32_t* labels) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DatasetInfo info_;
  std::string path_;
};

}  // namespace scalebench::data
