// late_reads.h — what a device records behind a training step's work so that the host reads it a
// step later instead of waiting for it: marks on the device's timeline at the step's phase
// boundaries, and the scan of the gradient for its first non-finite element (copied back into
// page-locked memory). Two slots alternate (step k uses slot k % kSlots), so the step being queued
// never touches the one still to be read. The CUDA implementation is models/cuda/late_reads.cpp
// (events made once, a flag and its copy at fixed addresses: nothing allocated, no stream drained);
// make_late_reads returns null where the device runs each call to completion (the CPU, a build
// without CUDA), and the caller then times and scans as before.
// What it deliberately does not do: decide which step goes into which slot or when a slot is read
// (harness/train/late_steps.h keeps that book), or say what the times mean (docs/metrics.md).
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/common/device.h"

namespace scalebench {

class LateReads {
 public:
  static constexpr int kSlots = 2;
  virtual ~LateReads() = default;
  // Queues mark k (0 <= k < the marks it was made with) of `slot` behind the work queued so far.
  virtual void mark(int slot, int k) = 0;
  // Queues the scan of x[0, n) (device f32) and the copy of its result back to the host.
  virtual void scan(int slot, const float* x, std::int64_t n) = 0;
  // Returns once everything queued for `slot` has happened: the slot was queued a step earlier, so
  // this is a bounded wait for old work (counted as a lagged wait, kernels/cuda/counters.h, when it
  // had not happened yet), not a drain of the stream.
  virtual void wait(int slot) = 0;
  // After wait(slot): seconds on the device's timeline from mark `from` to mark `to` of the slot.
  virtual double seconds(int slot, int from, int to) = 0;
  // After wait(slot): the scan's result (index -1: every element finite; no scan queued: -1).
  virtual NonFinite scanned(int slot) = 0;
};

// For `dev` with `marks` marks per slot; null where the device does not queue (see above).
std::unique_ptr<LateReads> make_late_reads(ComputeDevice& dev, int marks);

}  // namespace scalebench
