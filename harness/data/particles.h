// particles.h — the particle generator's internals (private to harness/data): the particle kinds,
// the tuning knobs of the physics-inspired model in one place, and the drawing functions split
// across particle_tracks.cpp, particle_showers.cpp and particle_noise.cpp. Lengths are in pixels
// of a 128 px image (Canvas::scale() stretches them); charge is in MIP units (a minimum-ionising
// track deposits 1.0 per px of path).
// Not a simulation: no energy calibration, no detector geometry beyond a pixel grid.
#pragma once

#include <cstdint>

#include "harness/data/particle_canvas.h"
#include "harness/data/rng.h"

namespace scalebench::data::detail {

// Classification labels (particle_gen.h): the order is the file's class_names.
enum class Particle : int { electron = 0, photon = 1, muon = 2, proton = 3, pion = 4 };
inline constexpr int kParticleKinds = 5;
inline constexpr const char* kParticleNames = "electron,photon,muon,proton,pion";

// Segmentation pixel classes.
inline constexpr std::uint8_t kPixelBackground = 0, kPixelShower = 1, kPixelTrack = 2;
inline constexpr const char* kPixelNames = "background,shower,track";

// --- tuning knobs -----------------------------------------------------------------------------
// The brightness knobs are set so shower and track pixels have overlapping charge distributions:
// a per-pixel intensity threshold must not separate the classes (docs/data-format.md has the
// measured threshold-baseline IoU).
namespace knob {
inline constexpr float kParticleGainSigma = 0.30f;  // per-particle log-normal gain
inline constexpr float kMipDedx = 1.0f;             // muon / pion / electron trunk
inline constexpr float kLandau = 0.15f;             // skewed per-step dE/dx fluctuation
inline constexpr float kBraggA = 5.0f;              // proton dE/dx = A (R + 0.6)^-p, R residual range
inline constexpr float kBraggP = 0.42f;
inline constexpr float kShowerDedx = 1.0f;   // first cascade generation, before fading
inline constexpr float kShowerFadeLo = 0.80f;  // per-generation dE/dx factor range
inline constexpr float kShowerFadeHi = 0.95f;
inline constexpr float kLabelThreshold = 0.10f;  // noise-free charge below this is background
}  // namespace knob

// Proton-like dE/dx at residual range r (px of a 128 px image).
float bragg_dedx(float residual_range);

// Each draw_* call is one particle: it wraps its deposits in canvas.begin(gain)/end(class) with a
// random per-particle gain, and draws from `rng` only.
void draw_muon(Canvas& c, Rng& rng, Vec2 vertex, float angle);
void draw_proton(Canvas& c, Rng& rng, Vec2 vertex, float angle);
void draw_pion(Canvas& c, Rng& rng, Vec2 vertex, float angle);
void draw_electron(Canvas& c, Rng& rng, Vec2 vertex, float angle);
void draw_photon(Canvas& c, Rng& rng, Vec2 vertex, float angle);
// A short (2-5 px), dense nuclear stub at a vertex (visible vertex activity), drawn as a track
// particle.
void draw_vertex_stub(Canvas& c, Rng& rng, Vec2 vertex);

void draw_particle(Canvas& c, Rng& rng, Particle kind, Vec2 vertex, float angle);

// Detector response: per-image gain, electronic noise (white + coherent per wire), dead wires.
// image: [size*size] charge; labels: [size*size] pixel classes, or nullptr (classification).
// Dead wires read 0 charge and their pixels are labelled background.
void apply_detector(const Canvas& c, Rng& rng, float* image, std::int32_t* labels);

}  // namespace scalebench::data::detail
