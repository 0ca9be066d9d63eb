// test_json.cpp — the JSON module (kernels/common/json.h): what layout() writes parses back to the
// same document (rows a line, invalid UTF-8 replaced), fixed decimals read back as the values they
// print, and every reader failure — not JSON, cut short, a missing member, a member of the wrong
// type — is one line naming the file and where in the document.
#include <gtest/gtest.h>

#include "kernels/common/json.h"
#include "tests/common/harness_test_util.h"

namespace {

using scalebench::json::Json;
using scalebench::json::Value;
namespace json = scalebench::json;

TEST(Json, LayoutParsesBackAndPutsRowsOnLines) {
  const Json doc = {{"name", "a \"b\"\n\\"}, {"n", 3}, {"x", 0.1}, {"whole", 8.0}, {"none", nullptr},
                    {"list", {1, 2}}, {"rows", {{{"k", 1}}, {{"k", 2}}}}, {"empty", Json::array()}};
  const std::string text = json::layout(doc);
  EXPECT_EQ(json::parse(text, "t"), doc);
  EXPECT_EQ(text,
            "{\n  \"name\": \"a \\\"b\\\"\\n\\\\\",\n  \"n\": 3,\n  \"x\": 0.1,\n  \"whole\": 8.0,\n  \"none\": null,\n"
            "  \"list\": [1,2],\n  \"rows\": [\n    {\"k\":1},\n    {\"k\":2}\n  ],\n  \"empty\": []\n}\n");
  EXPECT_EQ(json::layout(Json::array({1})), "[1]\n");
  // bytes that are not UTF-8 are replaced, not a failure (a host name, a layer name)
  EXPECT_EQ(json::parse(json::layout({{"s", std::string("a\xff")}}), "t")["s"], "a\xef\xbf\xbd");
}

TEST(Json, RoundedKeepsThePrintedValue) {
  EXPECT_EQ(json::rounded(1000.4996, 3), 1000.5);
  EXPECT_EQ(json::rounded(2.0 / 3.0, 6), 0.666667);
  EXPECT_EQ(Json(json::rounded(12.3456789, 3)).dump(), "12.346");
  EXPECT_TRUE(json::number_or_null(NAN).is_null());
  EXPECT_TRUE(json::number_or_null(-INFINITY).is_null());
  EXPECT_EQ(json::number_or_null(0.5), Json(0.5));
}

TEST(Json, ParseErrorsAreOneLineNamingTheFile) {
  std::string e = sbtest::error_of([] { json::parse("{\"a\": x}", "--commbench cb.json"); });
  EXPECT_EQ(e.rfind("--commbench cb.json: not JSON (parse error at line 1, column 7: ", 0), 0u) << e;
  EXPECT_EQ(e.find("last read"), std::string::npos) << e;  // the bytes it read may be binary
  e = sbtest::error_of([] { json::parse("{\"a\": [1, 2", "f.json"); });
  EXPECT_NE(e.find("unexpected end of input"), std::string::npos) << e;
  EXPECT_NE(e.find("(cut short?)"), std::string::npos) << e;
  e = sbtest::error_of([] { json::parse(std::string("\x89HDF\r\n\x1a\n", 8), "f.h5"); });
  EXPECT_EQ(e.rfind("f.h5: not JSON (", 0), 0u) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_EQ(e.find('\x89'), std::string::npos) << e;
  sbtest::TempDir d;
  e = sbtest::error_of([&] { json::read_file(d / "missing.json", "--commbench missing.json"); });
  EXPECT_EQ(e, "--commbench missing.json: cannot read: No such file or directory");
}

TEST(Json, MembersAreReadByNameWithOneLineNamingTheMember) {
  const Json doc = json::parse(R"({"ranks": 2, "gap": 0.5, "results": [{"algo": "ring", "bytes": 4096},
                                   {"algo": "ring", "bytes": "4K"}], "big": 18446744073709551615})",
                               "w");
  const Value top(doc, "--commbench cb.json");
  EXPECT_EQ(top["ranks"].integer(), 2);
  EXPECT_EQ(top["ranks"].number(), 2.0);  // an integer is a number
  EXPECT_EQ(top["gap"].number(), 0.5);
  EXPECT_FALSE(top.find("agree_us"));
  const auto rows = top["results"].elements();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["algo"].string(), "ring");
  EXPECT_EQ(rows[0]["bytes"].path(), "results[0].bytes");
  const auto error = [](const std::function<void()>& f) { return sbtest::error_of(f); };
  EXPECT_EQ(error([&] { top["nodes"]; }), "--commbench cb.json: no \"nodes\"");
  EXPECT_EQ(error([&] { rows[0]["time_us"]; }), "--commbench cb.json: results[0] has no \"time_us\"");
  EXPECT_EQ(error([&] { rows[1]["bytes"].integer(); }),
            "--commbench cb.json: results[1].bytes is string (\"4K\"), expected an integer");
  EXPECT_EQ(error([&] { top["gap"].integer(); }), "--commbench cb.json: gap is number (0.5), expected an integer");
  EXPECT_EQ(error([&] { top["ranks"].string(); }), "--commbench cb.json: ranks is number (2), expected a string");
  EXPECT_EQ(error([&] { top["ranks"].elements(); }), "--commbench cb.json: ranks is number (2), expected an array");
  EXPECT_EQ(error([&] { top["results"]["algo"]; }).rfind("--commbench cb.json: results is array ([{", 0), 0u);
  EXPECT_NE(error([&] { top["big"].integer(); }).find("big is number (18446744073709551615), expected an integer below 2^63"),
            std::string::npos);
  const Json list = Json::array({1});
  EXPECT_EQ(error([&] { Value(list, "t.json")["a"]; }), "t.json: is array ([1]), expected an object");
}

TEST(Json, MembersKeepTheFilesOrder) {
  const Json doc = json::parse(R"({"z": 1, "a": "x", "m": 2.5})", "m");
  std::vector<std::string> keys;
  for (const auto& [k, v] : Value(doc, "m").members()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "a", "m"}));
  EXPECT_EQ(json::layout(doc), "{\n  \"z\": 1,\n  \"a\": \"x\",\n  \"m\": 2.5\n}\n");
}

}  // namespace
