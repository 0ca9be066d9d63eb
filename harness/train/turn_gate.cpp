// turn_gate.cpp — the shared turn of an A/B pair on one CPU (see turn_gate.h). The turn is a futex
// word in a file both sides map: the side waiting sleeps in the kernel (no CPU taken from the side
// computing on the same core), and wakes when the turn is handed over or every 200 ms to see
// whether its peer is still there.
#include "harness/train/turn_gate.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "kernels/common/check.h"

namespace scalebench {
namespace {

constexpr double kMeetSeconds = 120;  // the other side's start-up (a second binary, its data) may take a while
constexpr const char* kEnv = "SCALEBENCH_AB_TURN";

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Gone: no such process, or a zombie its parent has not reaped yet (ab reaps one side only after
// the other ends, so a side that died would otherwise look alive).
bool process_gone(int pid) {
  if (pid <= 0) return false;
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(in, line)) return true;
  const auto paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] == 'Z' || line[paren + 2] == 'X';
}

}  // namespace

// The mapped file (zeroed by ab before the pair starts). owner: 0 nobody yet, 1 side a, 2 side b.
struct TurnGate::Shared {
  std::atomic<std::uint32_t> owner;
  std::atomic<std::int32_t> pid[2];
  std::atomic<std::uint32_t> ready[2];  // reached its first step
  std::atomic<std::uint32_t> done[2];
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "the turn must be a plain futex word");

namespace {

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t seen, double seconds) {
  timespec ts{time_t(seconds), long((seconds - double(time_t(seconds))) * 1e9)};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, seen, &ts, nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>& word) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

}  // namespace

std::unique_ptr<TurnGate> TurnGate::from_env() {
  const char* v = std::getenv(kEnv);
  if (!v || !*v) return nullptr;
  const std::string s = v;
  const auto c2 = s.rfind(':');
  const auto c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : s.rfind(':', c2 - 1);
  SB_REQUIRE(c1 != std::string::npos && c1 > 0, "{}='{}': not FILE:SIDE:SLICE_MS (set by scalebench ab)", kEnv, s);
  const std::string side = s.substr(c1 + 1, c2 - c1 - 1), ms = s.substr(c2 + 1);
  SB_REQUIRE(side == "a" || side == "b", "{}='{}': side '{}' is not a or b", kEnv, s, side);
  char* end = nullptr;
  const double slice_ms = std::strtod(ms.c_str(), &end);
  SB_REQUIRE(!ms.empty() && *end == '\0' && slice_ms >= 1 && slice_ms <= 60000,
             "{}='{}': slice '{}' is not 1 to 60000 ms", kEnv, s, ms);
  return std::make_unique<TurnGate>(s.substr(0, c1), side == "a" ? 0 : 1, slice_ms / 1000);
}

TurnGate::TurnGate(const std::string& file, int side, double slice_s) : file_(file), me_(side), slice_s_(slice_s) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
  SB_REQUIRE(fd >= 0, "{}: {}: cannot open the turn file: {}", kEnv, file, std::strerror(errno));
  void* p = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  SB_REQUIRE(p != MAP_FAILED, "{}: {}: cannot map the turn file: {}", kEnv, file, std::strerror(err));
  shared_ = static_cast<Shared*>(p);
  shared_->pid[me_].store(::getpid());
}

TurnGate::~TurnGate() {
  leave();
  if (shared_) ::munmap(shared_, sizeof(Shared));
}

bool TurnGate::other_gone() const {
  const int o = 1 - me_;
  return shared_->done[o].load() != 0 || process_gone(shared_->pid[o].load());
}

// The first step: wait (a while) for the other side to reach its own, so neither computes beside
// the other's start-up; whoever arrives last starts.
void TurnGate::meet() {
  met_ = true;
  shared_->ready[me_].store(1);
  const double t0 = now_s();
  while (!shared_->ready[1 - me_].load() && !other_gone()) {
    if (now_s() - t0 > kMeetSeconds) {
      alone_ = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::uint32_t nobody = 0;
  shared_->owner.compare_exchange_strong(nobody, std::uint32_t(1 + (1 - me_)));  // the earlier one waits first
  if (alone_ || other_gone()) shared_->owner.store(std::uint32_t(1 + me_));
  futex_wake(shared_->owner);
}

double TurnGate::wait() {
  if (left_) return 0;
  const double t0 = now_s();
  if (!met_) meet();
  const std::uint32_t mine = 1 + me_, theirs = 1 + (1 - me_);
  if (shared_->owner.load() == mine) {
    if (turns_ == 0) {  // its first turn
      ++turns_;
      turn_started_ = t0;
      return 0;
    }
    if (t0 - turn_started_ < slice_s_) return 0;
    if (other_gone()) {  // alone: nobody to hand it to
      turn_started_ = t0;
      return 0;
    }
    shared_->owner.store(theirs);
    futex_wake(shared_->owner);
  }
  for (std::uint32_t seen; (seen = shared_->owner.load()) != mine;) {
    if (other_gone()) {
      shared_->owner.compare_exchange_strong(seen, mine);
      continue;
    }
    futex_wait(shared_->owner, seen, 0.2);
  }
  turn_started_ = now_s();
  ++turns_;
  const double waited = turn_started_ - t0;
  waited_s_ += waited;
  return waited;
}

void TurnGate::leave() {
  if (left_ || !shared_) return;
  left_ = true;
  shared_->done[me_].store(1);
  std::uint32_t mine = 1 + me_;
  shared_->owner.compare_exchange_strong(mine, std::uint32_t(1 + (1 - me_)));
  futex_wake(shared_->owner);
}

std::string TurnGate::note() const {
  if (alone_)
    return fmt::format("ran alone: the other side of its A/B pair did not reach its first step within {:.0f} s "
                       "(scalebench ab --interleave slice)", kMeetSeconds);
  return fmt::format("took turns with the other side of its A/B pair on one CPU (scalebench ab --interleave slice, "
                     "slices of {:.0f} ms): {} turns, waited {:.1f} s (left out of the epoch times)",
                     slice_s_ * 1000, turns_, waited_s_);
}

TurnGate* turn_gate() {
  static const std::unique_ptr<TurnGate> gate = TurnGate::from_env();
  return gate.get();
}

}  // namespace scalebench
