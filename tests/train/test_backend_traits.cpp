// test_backend_traits.cpp — the backend capability rows (harness/train/backend_traits.h): they
// drive validation (a feature a backend lacks is refused with one line naming the option, one it has
// passes), --help, and docs/gpu.md's feature × backend table, which must be the generated one.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/train/backend_traits.h"
#include "harness/train/train_config.h"
#include "kernels/common/check.h"

namespace scalebench {
namespace {

TrainConfig config(Backend b) {
  TrainConfig c;
  c.data = "x.h5";  // validate() checks the name only
  c.backend = b;
  return c;
}

std::string refusal(const TrainConfig& c) {
  try {
    c.validate();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(BackendTraits, EveryRowWithAMissingColumnIsRefusedNamingItsOption) {
  // One configuration per row that can be asked for, each using that feature alone.
  struct Use {
    std::string_view option;
    void (*set)(TrainConfig&);
  };
  const Use uses[] = {
      {"--precision tf32|bf16", [](TrainConfig& c) { c.precision = Precision::bf16; }},
      {"--layout NHWC", [](TrainConfig& c) { c.layout = Layout::NHWC; }},
      {"--deterministic", [](TrainConfig& c) { c.deterministic = true; }},
      {"--cudnn-workspace-mib", [](TrainConfig& c) { c.cudnn_workspace_mib = 4096; }},
      {"--cuda-graph on", [](TrainConfig& c) { c.cuda_graph = CudaGraph::on; }},
      {"--gpu-kernels own", [](TrainConfig& c) { c.gpu_kernels = GpuKernels::own; }},
      {"--reference-kernels", [](TrainConfig& c) { c.reference_kernels = true; }},
      {"--cpu-kernels blas|onednn", [](TrainConfig& c) { c.cpu_kernels = CpuKernels::blas; }},
      {"--accumulate", [](TrainConfig& c) { c.accumulate = 2; }},
      {"--sync-bn", [](TrainConfig& c) { c.sync_bn = true; }},
      {"--optimizer lars", [](TrainConfig& c) { c.optimizer = OptimizerKind::lars; }},
      {"--optimizer lamb", [](TrainConfig& c) { c.optimizer = OptimizerKind::lamb; }},
  };
  int refused = 0, passed = 0;
  for (const auto& f : backend_features()) {
    if (!f.used) continue;
    const Use* u = nullptr;
    for (const auto& x : uses)
      if (x.option == f.option) u = &x;
    ASSERT_NE(u, nullptr) << "no test configuration for the row " << f.option;
    for (Backend b : {Backend::cpu, Backend::cuda}) {
      TrainConfig c = config(b);
      u->set(c);
      ASSERT_TRUE(f.used(c)) << f.option;
      const std::string why = refusal(c);
      if (feature_on(f, b)) {
        EXPECT_EQ(why, "") << f.option << " on " << name_of(b);
        ++passed;
      } else {
        EXPECT_EQ(why.rfind(as_used(f, c) + ": not on --backend " + std::string(name_of(b)), 0), 0u)
            << f.option << " on " << name_of(b) << ": " << why;
        ++refused;
      }
    }
  }
  EXPECT_GE(refused, 5);  // the GPU-only options on cpu, --reference-kernels and --sync-bn on cuda
  EXPECT_GE(passed, 8);
}

TEST(BackendTraits, HelpNamesEachBackendsOwnOptions) {
  const std::string h = backend_help();
  EXPECT_NE(h.find("cuda only: --precision tf32|bf16, --layout NHWC"), std::string::npos) << h;
  EXPECT_NE(h.find("cpu only: --reference-kernels"), std::string::npos) << h;
}

// docs/gpu.md holds the generated table between two markers, byte for byte.
TEST(BackendTraits, DocsTableIsTheGeneratedOne) {
  std::ifstream in(std::string(SB_SOURCE_DIR) + "/docs/gpu.md");
  ASSERT_TRUE(in) << "docs/gpu.md";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::string begin = "<!-- backend-features: generated from harness/train/backend_traits.cpp -->\n";
  const std::string end = "<!-- /backend-features -->";
  const auto b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/gpu.md has no backend-features table";
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), backend_feature_table())
      << "docs/gpu.md's feature x backend table differs from the capability rows; paste:\n"
      << backend_feature_table();
}

}  // namespace
}  // namespace scalebench
