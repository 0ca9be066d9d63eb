// particle_gen.cpp — composes one sample from the particle drawing functions: the event layout
// for each task, the per-sample random streams, and the detector response. Sample i depends only
// on (seed, i): geometry and detector noise draw from two independent streams seeded by a hash of
// (seed, i), so samples can be generated in any order or in parallel.
// It writes no files (particle_writer.cpp does).
#include <cmath>

#include "harness/data/particle_gen.h"
#include "harness/data/particles.h"
#include "kernels/common/check.h"

namespace scalebench::data {

using namespace detail;

namespace {

constexpr double kTwoPi = 6.283185307179586;

// Several particles from one or two vertices: 1-3 showers and 1-4 tracks.
void segmentation_event(Canvas& c, Rng& rng) {
  const double n = c.size();
  Vec2 vertices[2];
  const int nv = rng.range(1, 2);
  for (int v = 0; v < nv; ++v)
    vertices[v] = {static_cast<float>(rng.uniform(0.15 * n, 0.85 * n)),
                   static_cast<float>(rng.uniform(0.15 * n, 0.85 * n))};
  const int showers = rng.range(1, 3);
  const int tracks = rng.range(1, 4);
  for (int k = 0; k < showers + tracks; ++k) {
    Particle kind;
    if (k < showers) {
      kind = rng.chance(0.5) ? Particle::electron : Particle::photon;
    } else {
      const double u = rng.uniform();
      kind = u < 0.35 ? Particle::muon : u < 0.70 ? Particle::proton : Particle::pion;
    }
    const Vec2 v = vertices[rng.below(static_cast<std::uint64_t>(nv))];
    draw_particle(c, rng, kind, v, static_cast<float>(rng.uniform(0.0, kTwoPi)));
  }
}

// One particle of the given kind from a vertex near the centre, heading roughly away from the
// nearest edges (within ±90° of the direction to the centre) so most of it stays in view.
void classification_event(Canvas& c, Rng& rng, Particle kind) {
  const double n = c.size();
  const Vec2 v{static_cast<float>(rng.uniform(0.3 * n, 0.7 * n)),
               static_cast<float>(rng.uniform(0.3 * n, 0.7 * n))};
  const double to_centre = std::atan2(0.5 * n - v.y, 0.5 * n - v.x);
  const auto angle = static_cast<float>(to_centre + rng.uniform(-0.5, 0.5) * (kTwoPi / 2));
  // Vertex activity is not unique to photons: a quarter of electrons show a stub too, so the
  // classifier must use the gap, not the stub's presence.
  if (kind == Particle::electron && rng.chance(0.25)) draw_vertex_stub(c, rng, v);
  draw_particle(c, rng, kind, v, angle);
}

}  // namespace

void generate_sample(const GenConfig& cfg, std::int64_t index, float* image, std::int32_t* label) {
  SB_REQUIRE(cfg.size >= 16 && cfg.size <= 4096, "datagen: size {} outside 16..4096", cfg.size);
  SB_REQUIRE(index >= 0, "datagen: sample index {} is negative", index);
  Canvas canvas(cfg.size);
  Rng geometry(cfg.seed, static_cast<std::uint64_t>(index), 1);
  Rng detector(cfg.seed, static_cast<std::uint64_t>(index), 2);
  if (cfg.task == Task::segmentation) {
    segmentation_event(canvas, geometry);
    apply_detector(canvas, detector, image, label);
  } else {
    // Balanced classes: sample i is class i mod 5 (the sampler shuffles).
    const auto kind = static_cast<Particle>(index % kParticleKinds);
    classification_event(canvas, geometry, kind);
    apply_detector(canvas, detector, image, nullptr);
    *label = static_cast<std::int32_t>(kind);
  }
}

}  // namespace scalebench::data
