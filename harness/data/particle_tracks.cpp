// particle_tracks.cpp — track-like particles: muons (long, nearly straight, multiple-scattering
// wiggle, constant dE/dx), protons (short, dense, Bragg peak at the end) and pions (medium length,
// kinks from hard scatters, often ending in a small interaction star). Tracks are polylines of
// short steps whose direction random-walks; charge per step follows a dE/dx law of the residual
// range with a skewed (Landau-like) fluctuation. No delta rays, no Michel electrons.
#include <algorithm>
#include <cmath>

#include "harness/data/particles.h"

namespace scalebench::data::detail {

float bragg_dedx(float residual_range) {
  return knob::kBraggA * std::pow(std::max(residual_range, 0.0f) + 0.6f, -knob::kBraggP);
}

namespace {

// Skewed fluctuation with mean 1: most steps a little below, a few well above (Landau tail).
float landau_factor(Rng& rng) {
  return std::max(0.4f, 1.0f + knob::kLandau * static_cast<float>(rng.exponential(1.0) - 1.0));
}

struct Walk {
  float step = 2.0f;     // px (128 px image)
  float wiggle = 0.02f;  // rad per step, multiple scattering
};

// Steps from p for `length` px (128-px units), turning by N(0, wiggle) each step; dedx(r) gives
// the charge per px at residual range r. Stops early once well outside the image. Updates p and
// angle to the end point and final direction.
template <class DeDx>
void walk(Canvas& c, Rng& rng, Vec2& p, float& angle, float length, const Walk& w, DeDx dedx) {
  const float s = c.scale();
  float done = 0;
  while (done < length) {
    const float step = std::min(w.step, length - done);
    const Vec2 q = p + (step * s) * direction(angle);
    const float f = landau_factor(rng);
    c.line(p, q, dedx(length - done) * f, dedx(length - done - step) * f);
    p = q;
    done += step;
    angle += static_cast<float>(rng.normal(0.0, w.wiggle));
    if (!c.inside(p, 4.0f)) return;
  }
}

float particle_gain(Rng& rng) { return static_cast<float>(rng.lognormal(knob::kParticleGainSigma)); }

// A stopping MIP: flat, rising over the last few px.
float stopping_mip(float r) { return knob::kMipDedx * (1.0f + 1.5f * std::exp(-std::max(r, 0.0f) / 3.0f)); }

}  // namespace

void draw_muon(Canvas& c, Rng& rng, Vec2 v, float angle) {
  c.begin(particle_gain(rng));
  const float length = static_cast<float>(rng.uniform(70.0, 220.0));
  walk(c, rng, v, angle, length, Walk{2.0f, 0.02f}, stopping_mip);
  c.end(kPixelTrack);
}

void draw_proton(Canvas& c, Rng& rng, Vec2 v, float angle) {
  c.begin(particle_gain(rng));
  const float length = static_cast<float>(rng.uniform(8.0, 36.0));
  walk(c, rng, v, angle, length, Walk{1.0f, 0.025f}, bragg_dedx);
  c.end(kPixelTrack);
}

void draw_vertex_stub(Canvas& c, Rng& rng, Vec2 v) {
  c.begin(particle_gain(rng));
  float angle = static_cast<float>(rng.uniform(0.0, 6.283185307179586));
  const float length = static_cast<float>(rng.uniform(2.0, 5.0));
  walk(c, rng, v, angle, length, Walk{1.0f, 0.05f}, bragg_dedx);
  c.end(kPixelTrack);
}

void draw_pion(Canvas& c, Rng& rng, Vec2 v, float angle) {
  c.begin(particle_gain(rng));
  const float length = static_cast<float>(rng.uniform(30.0, 90.0));
  // Hard scatters split the track into pieces; at least one kink or a star marks every pion.
  int kinks = rng.chance(0.5) ? 1 : (rng.chance(0.5) ? 2 : 0);
  const bool star = rng.chance(0.55);
  if (kinks == 0 && !star) kinks = 1;
  float cuts[3];
  for (int k = 0; k < kinks; ++k) cuts[k] = length * static_cast<float>(rng.uniform(0.25, 0.8));
  std::sort(cuts, cuts + kinks);

  const auto dedx = [&](float r) { return 1.05f * (star ? knob::kMipDedx : stopping_mip(r)); };
  float done = 0;
  for (int k = 0; k <= kinks; ++k) {
    const float upto = k < kinks ? cuts[k] : length;
    // dedx sees the residual range of the whole pion, not of the piece.
    const float piece = upto - done;
    const float rest = length - upto;
    walk(c, rng, v, angle, piece, Walk{2.0f, 0.035f}, [&](float r) { return dedx(r + rest); });
    done = upto;
    if (k < kinks) {
      const float turn = static_cast<float>(rng.uniform(0.35, 1.1));
      angle += rng.chance(0.5) ? turn : -turn;
    }
  }
  if (star && c.inside(v)) {
    // Interaction star: 2-4 short, dense prongs (nuclear fragments) from the end point.
    const int prongs = rng.range(2, 4);
    for (int k = 0; k < prongs; ++k) {
      Vec2 p = v;
      float a = static_cast<float>(rng.uniform(0.0, 6.283185307179586));
      const float len = static_cast<float>(rng.uniform(3.0, 12.0));
      walk(c, rng, p, a, len, Walk{1.5f, 0.05f}, bragg_dedx);
    }
  }
  c.end(kPixelTrack);
}

}  // namespace scalebench::data::detail
