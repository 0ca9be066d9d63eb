// particle_gen.h — synthetic LArTPC-like particle images, in the spirit of the DeepLearnPhysics open
// data: one-channel charge images with muon tracks (long, straight, multiple scattering), proton
// tracks (short, dense, Bragg peak), pion tracks, and EM showers (electron: trunk then branching
// cascade; photon: the same after a gap from the vertex), plus noise and dead wires.
// Deterministic: sample i depends only on (seed, i). Writes HDF5 per docs/data-format.md.
#pragma once

#include <cstdint>
#include <string>

#include "harness/data/dataset.h"

namespace scalebench::data {

struct GenConfig {
  Task task = Task::segmentation;
  std::int64_t n = 2000;
  int size = 128;  // images are size × size
  std::uint64_t seed = 1;
};

// Segmentation labels: 0 background, 1 shower, 2 track. Classification: 0 electron, 1 photon,
// 2 muon, 3 proton, 4 pion.
void generate_sample(const GenConfig& cfg, std::int64_t index, float* image, std::int32_t* label);

// The classes write_dataset records for a task: the 3 pixel classes (segmentation) or the 5
// particle kinds (classification). Images are 1 channel of size × size.
int generated_classes(Task task);

// Writes the whole set to `path` atomically (a temporary file renamed on success), printing a
// progress line every `progress_every` samples (0: silent).
void write_dataset(const GenConfig& cfg, const std::string& path, std::int64_t progress_every = 500);

}  // namespace scalebench::data
