// consistency.h — check_same_everywhere: before the first collective of a run, every rank checks
// that all ranks hold the same configuration, so a mismatch (different --batch on one rank, a stale
// binary) is one clear Error instead of a deadlock or silently wrong numbers.
// It compares only what the caller passes (the canonical config text); it does not build that text.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "harness/comm/communicator.h"

namespace scalebench::comm {

// Collective. `what` names the thing compared (e.g. "run configuration"). Cheap when all agree (one
// allgather of a 64-bit digest); on a mismatch the full texts are gathered and the Error names each
// differing rank and the first differing line ("key = value" lines name the key). Every rank throws
// the same Error, so no rank is left waiting.
void check_same_everywhere(Communicator& comm, std::string_view what, std::string_view text);

// Collective, for a verdict every rank reached alike: rank 0 prints "scalebench: error: <msg>" (one
// line), every rank waits until it has, then throws ReportedError(msg) — recorded like any error,
// printed by no one else, so the job shows the line once, not once per rank.
[[noreturn]] void fail_everywhere(Communicator& comm, const std::string& msg);

// Collective: runs `check` on every rank; when it throws an Error on any rank, rank 0 prints one line
// for the job (each distinct reason once, with the ranks that hit it unless all did) and every rank
// throws ReportedError. For input checks each rank can make alone (a data file, a GPU) but whose
// failure would otherwise print once per rank — or, where only some ranks fail, leave the others
// waiting for them. Errors of other types pass through unchanged (they are not the input's).
void succeed_everywhere(Communicator& comm, const std::function<void()>& check);

}  // namespace scalebench::comm
