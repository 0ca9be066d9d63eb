// particle_showers.cpp — electromagnetic showers. An electron leaves a MIP-like trunk from the
// vertex, then a cascade: each segment curls (low-energy electrons scatter hard) and ends by
// splitting its energy between two daughters whose opening angle widens with the generation,
// charge fades generation by generation, and bremsstrahlung photons convert away from the core
// as small isolated blobs. A photon draws the same cascade after a conversion gap from the vertex
// (marked by a nuclear stub so the gap is visible), and its first segment is an e+e- pair: twice
// the dE/dx.
// Not a shower simulation: energies are abstract units that only set the cascade's size.
#include <algorithm>
#include <cmath>

#include "harness/data/particles.h"

namespace scalebench::data::detail {

namespace {

constexpr float kEnergyMin = 12.0f;  // below this a branch stops
constexpr int kMaxGeneration = 8;
constexpr int kMaxSegments = 160;   // bounds the cost of one shower
constexpr float kBlobProb = 0.30f;  // per segment: a brem photon converting away from the core

struct Cascade {
  Canvas& c;
  Rng& rng;
  int segments = 0;

  // A small deposit detached from the core: a converted bremsstrahlung photon (1-3 px stub).
  void blob(Vec2 from, float angle, int gen, float dedx) {
    const float s = c.scale();
    const float dist = (3.0f + static_cast<float>(rng.exponential(9.0))) * s;
    const float a = angle + static_cast<float>(rng.normal(0.0, 0.35 + 0.08 * gen));
    const Vec2 p = from + dist * direction(a);
    const float len = static_cast<float>(rng.uniform(0.5, 3.0)) * s;
    const float q = dedx * static_cast<float>(rng.uniform(0.8, 1.8));
    c.line(p, p + len * direction(a + static_cast<float>(rng.normal(0.0, 0.5))), q, q * 0.7f);
  }

  // One segment from p along angle, then its daughters. dedx fades with the generation.
  void grow(Vec2 p, float angle, float energy, int gen, float dedx) {
    if (energy < kEnergyMin || gen > kMaxGeneration || segments >= kMaxSegments || !c.inside(p, 8)) {
      if (rng.chance(0.5)) c.point(p, dedx * static_cast<float>(rng.uniform(0.5, 1.5)));
      return;
    }
    ++segments;
    const float s = c.scale();
    const float len = std::min(10.0f, 1.5f + static_cast<float>(rng.exponential(1.5 + 0.012 * energy)));
    // Low-energy electrons scatter hard: the segment curls in 1.5 px steps, more at each
    // generation. This (not brightness) is what makes a shower branch look unlike a track.
    const double curl = 0.15 + 0.05 * gen;
    const float end_dedx = dedx * static_cast<float>(rng.uniform(0.85, 1.0));
    Vec2 q = p;
    for (float done = 0; done < len; done += 1.5f) {
      const float step = std::min(1.5f, len - done);
      const Vec2 next = q + (step * s) * direction(angle);
      c.line(q, next, dedx + (end_dedx - dedx) * done / len,
             dedx + (end_dedx - dedx) * (done + step) / len);
      q = next;
      angle += static_cast<float>(rng.normal(0.0, curl));
    }
    energy -= 0.8f * len;
    if (rng.chance(kBlobProb)) {
      blob(q, angle, gen, dedx);
      energy -= 4.0f;
    }
    const float fade = static_cast<float>(rng.uniform(knob::kShowerFadeLo, knob::kShowerFadeHi));
    if (rng.chance(0.75)) {
      // Split: one daughter to each side, the opening angle widening with depth.
      const float f = static_cast<float>(rng.uniform(0.2, 0.8));
      const double open = 0.12 + 0.08 * gen;
      const float a1 = angle + static_cast<float>(std::fabs(rng.normal(0.0, open)));
      const float a2 = angle - static_cast<float>(std::fabs(rng.normal(0.0, open)));
      grow(q, a1, energy * f, gen + 1, dedx * fade);
      grow(q, a2, energy * (1 - f), gen + 1, dedx * fade);
    } else {
      grow(q, angle + static_cast<float>(rng.normal(0.0, 0.1)), energy, gen + 1, dedx * fade);
    }
  }
};

float shower_energy(Rng& rng) { return static_cast<float>(rng.uniform(120.0, 400.0)); }

}  // namespace

void draw_electron(Canvas& c, Rng& rng, Vec2 v, float angle) {
  c.begin(static_cast<float>(rng.lognormal(knob::kParticleGainSigma)));
  Cascade cascade{c, rng};
  // Trunk: the electron ionises like a MIP for a few px before the cascade opens up.
  const float trunk = static_cast<float>(rng.uniform(8.0, 20.0)) * c.scale();
  const Vec2 q = v + trunk * direction(angle);
  c.line(v, q, knob::kMipDedx, knob::kMipDedx);
  cascade.grow(q, angle + static_cast<float>(rng.normal(0.0, 0.05)), shower_energy(rng), 0,
               knob::kShowerDedx);
  c.end(kPixelShower);
}

void draw_photon(Canvas& c, Rng& rng, Vec2 v, float angle) {
  draw_vertex_stub(c, rng, v);
  c.begin(static_cast<float>(rng.lognormal(knob::kParticleGainSigma)));
  Cascade cascade{c, rng};
  // Conversion gap, then the pair: the first segment carries two MIPs' worth of charge. The gap
  // is at least twice the stub's reach, so empty pixels always separate the two.
  const float gap = std::min(10.0f + static_cast<float>(rng.exponential(12.0)), 45.0f) * c.scale();
  const Vec2 start = v + gap * direction(angle);
  const float first = static_cast<float>(rng.uniform(6.0, 14.0)) * c.scale();
  const Vec2 q = start + first * direction(angle);
  c.line(start, q, 2.0f * knob::kMipDedx, 2.0f * knob::kMipDedx);
  cascade.grow(q, angle + static_cast<float>(rng.normal(0.0, 0.05)), shower_energy(rng), 0,
               knob::kShowerDedx);
  c.end(kPixelShower);
}

void draw_particle(Canvas& c, Rng& rng, Particle kind, Vec2 vertex, float angle) {
  switch (kind) {
    case Particle::electron: draw_electron(c, rng, vertex, angle); break;
    case Particle::photon: draw_photon(c, rng, vertex, angle); break;
    case Particle::muon: draw_muon(c, rng, vertex, angle); break;
    case Particle::proton: draw_proton(c, rng, vertex, angle); break;
    case Particle::pion: draw_pion(c, rng, vertex, angle); break;
  }
}

}  // namespace scalebench::data::detail
