// test_docs_snippet.cpp — the h5py → pandas snippet in docs/results-schema.md works: it is taken
// from the document as written and run on the committed sample study file (results/samples/).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tests/common/harness_test_util.h"

TEST(DocsSnippet, H5pyToPandasWorks) {
  const std::string src = SB_SOURCE_DIR;
  if (sbtest::run("/usr/bin/python3 -c 'import h5py, pandas'") != 0)
    GTEST_SKIP() << "/usr/bin/python3 lacks h5py or pandas (apt-get install python3-h5py python3-pandas)";
  std::ifstream in(src + "/docs/results-schema.md");
  ASSERT_TRUE(in) << "docs/results-schema.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto begin = doc.find("```python\n");
  ASSERT_NE(begin, std::string::npos) << "no ```python block in docs/results-schema.md";
  const auto end = doc.find("```", begin + 10);
  const std::string snippet = doc.substr(begin + 10, end - begin - 10);
  EXPECT_LE(std::count(snippet.begin(), snippet.end(), '\n'), 3) << "the snippet should be three lines";
  sbtest::TempDir dir;
  const std::string script = dir / "snippet.py";
  std::ofstream(script) << snippet
                        << "assert len(df) > 0, 'no rows'\n"
                           "assert isinstance(df['strategy'][0], str), 'strings must be decoded'\n"
                           "for c in ['run_id', 'status', 'world_size', 'images_per_s', 'speedup', 'efficiency']:\n"
                           "    assert c in df.columns, c\n"
                           "print(df[['model', 'strategy', 'world_size', 'status', 'images_per_s']].to_string())\n";
  std::string out;
  EXPECT_EQ(sbtest::run("cd " + src + " && /usr/bin/python3 " + script, &out), 0) << out;
}
