// particle_canvas.h — the noise-free charge canvas the particle generator draws on (private to
// harness/data). Charge is deposited along segments with sub-pixel sampling and spread by a small
// Gaussian (diffusion), so a minimum-ionising track ends up 2-3 px wide. Each particle is drawn
// between begin() and end(); end() merges it into the totals and records, per pixel, the class of
// the particle that deposited the most charge there (the segmentation label rule).
// It knows no physics (tracks/showers draw through it) and adds no noise (particle_noise.cpp does).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace scalebench::data::detail {

struct Vec2 {
  float x = 0, y = 0;
};
inline Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
inline Vec2 operator*(float s, Vec2 a) { return {s * a.x, s * a.y}; }
inline Vec2 direction(float angle) { return {std::cos(angle), std::sin(angle)}; }

class Canvas {
 public:
  explicit Canvas(int size);

  int size() const { return size_; }
  // Length scale: the generator's lengths are tuned for 128 px images and scale with the size,
  // so a larger image shows the same physics at a finer resolution (widths stay in pixels).
  float scale() const { return static_cast<float>(size_) / 128.0f; }
  bool inside(Vec2 p, float margin = 0) const {
    return p.x >= -margin && p.y >= -margin && p.x < size_ + margin && p.y < size_ + margin;
  }

  // Starts a particle; every charge it deposits is multiplied by `gain`.
  void begin(float gain);
  // Deposits charge q at p (pixel (i, j) covers [i, i+1) × [j, j+1); x is the column).
  void point(Vec2 p, float q);
  // Deposits along a→b with dE/dx varying linearly from dedx_a to dedx_b (charge per px of path),
  // sampled every 1/4 px.
  void line(Vec2 a, Vec2 b, float dedx_a, float dedx_b);
  // Ends the particle: adds it to total() and takes pixel ownership where it out-deposits the
  // current owner. cls is the pixel class (1 shower, 2 track).
  void end(std::uint8_t cls);

  const std::vector<float>& total() const { return total_; }          // [size*size]
  const std::vector<std::uint8_t>& owner() const { return owner_; }  // [size*size], 0 = none
  // Charge of the particle being drawn, valid between begin() and end() (tests use it).
  const std::vector<float>& current() const { return own_; }

 private:
  int size_;
  float gain_ = 1;
  std::vector<float> own_;    // [size*size] the particle being drawn
  std::vector<float> total_;  // [size*size] all particles
  std::vector<float> best_;   // [size*size] largest single-particle charge so far
  std::vector<std::uint8_t> owner_;
  int bx0_, by0_, bx1_, by1_;  // bounding box of own_ (inclusive), to merge only what was touched
};

}  // namespace scalebench::data::detail
