// calibrate.h — `scalebench project --calibrate`: a measured efficiency or step time at a small N
// (typically a 2-node run) fits the inter-node link's delivered bandwidth, within the latency range
// the link was assumed to have; two or more points (a 2- and a 4-node run) fit its latency too; the
// larger N are predicted from what was measured. What it deliberately does not do: fit more than one
// number from one point (the latency stays assumed, its range carried into the band; past the link's
// range, the one number is where gradients are ready, as a second reading for the band), or read a
// link that was measured already (--commbench).
#pragma once

#include <string>
#include <vector>

#include "harness/study/project/netmodel.h"
#include "harness/study/project/projection.h"

namespace scalebench::project {

// One measured point: `N=K:eff=E` (a weak-scaling efficiency at K devices) or `N=K:step_ms=S` (its
// step time), optionally `:spread=D` (how far the measurement may be off: efficiency units for eff,
// a fraction of the step for step_ms; default 0.02, a stated choice: two runs of one configuration
// on a shared cluster differ by about that) and `:strategy=NAME` (default ring); or `N=K:study=FILE`:
// the efficiency is the mean of FILE's ok weak-scaling rows of that strategy at world_size K (a study
// file of the measured runs, `collect`'s; its efficiency is against its own N = 1 runs).
struct CalibrationPoint {
  int n = 0;
  double efficiency = 0, step_s = 0, spread = 0.02;
  StrategyKind strategy = StrategyKind::ring;
  std::string study;  // study=FILE, read by parse_calibration
  std::string text;   // as given
};
// Throws one line naming the field for a malformed spec, K < 2, eff outside (0, 1], step_ms <= 0,
// spread outside [0, 0.5], or a study file without such rows (it reads the file).
CalibrationPoint parse_calibration(const std::string& spec);

// The link that reproduces the points (one or more, each N once; sorted here by N): the bandwidth
// solved (bisection on a log scale between 1 kB/s and 10 TB/s) so that the prediction at the smallest
// N matches its measured figure. The latency: with one point, the middle of `net`'s latency range (or
// its one latency), the range kept; with two or more, fitted — at each latency on a log grid (0.1 us
// to 100 ms, 40 a decade) the smallest point fixes the bandwidth, and the worst miss over the points
// (in spreads: a step's relative miss over its spread, an efficiency's miss over its; the smallest's
// too, where a bound took its bandwidth) is that latency's; the point is the least miss, the range every latency at which each point lies within its
// spread (none: the least miss alone, and `warning` says the points disagree; a fit outside the
// link's assumed latency range is said too). The bandwidth's range: bw_lo solved for the smallest
// point's slow side (efficiency - spread, or step x (1 + spread)) at the highest latency of the
// range, bw_hi for its fast side at the lowest. A figure no bandwidth reaches (faster than the
// model's compute allows, or slower than 1 kB/s gives) takes the bound, and `warning` says so, naming
// the point or the band's end; so does a fit faster than the link's assumed range allows (the
// point's cost lies elsewhere than the link). Then, on a described step (o.ready_assumed: its layers
// are an assumption), the points have another reading: the link at its range's fast end and the
// gradients ready sooner — the fraction of backward they are spread over (ready_over) solved by
// bisection for the smallest point's figure, its range for the two sides — which `other` holds where
// one reaches that figure and the other points lie within their spreads of it (the band takes it in;
// the point stays the fitted link's). Throws for a link measured by commbench, or two points at one N.
// What the points fit: the link, and the other reading where there is one.
struct Calibration {
  AlphaBeta link;
  ReadyReading other;
};
Calibration calibrate(const MeasuredStep& m, const Network& net, const ProjectOptions& o,
                      std::vector<CalibrationPoint> points, std::string& warning);

}  // namespace scalebench::project
