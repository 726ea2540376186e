/*
 * Config: documented defaults, JSON loading and its errors (unknown key with
 * a suggestion, wrong type, malformed JSON with line:column), overrides,
 * validation, write/load round trip, the docs table.
 */
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/config.h"
#include "sim/core/engine.h"

using namespace vlgpu;
using namespace vlgpu::sim;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

std::string
error_of(const std::function<void()> &f)
{
   try {
      f();
   } catch (const ConfigError &e) {
      return e.what();
   }
   return "(no ConfigError)";
}

std::string
merge_error(const std::string &text)
{
   return error_of([&] {
      Config c;
      c.merge_json_text(text, "gpu.json");
   });
}

TEST(Config, DefaultsFromTheBrief)
{
   Config c;
   EXPECT_EQ(c.gpcs, 1u);
   EXPECT_EQ(c.spcs_per_gpc, 4u);
   EXPECT_EQ(c.thread_group_width, 16u);
   EXPECT_EQ(c.thread_groups_per_spc, 8u);
   EXPECT_EQ(c.vec4_registers_per_lane, 128u);
   EXPECT_EQ(c.l2_size_bytes, 256u * 1024u);
   EXPECT_EQ(c.l2_ways, 8u);
   EXPECT_EQ(c.l2_line_bytes, 64u);
   EXPECT_EQ(c.vram_size_bytes, 256u * 1024u * 1024u);
   EXPECT_EQ(c.queue_default_capacity, 4u);
   EXPECT_EQ(c.queue_default_latency, 1u);
   EXPECT_EQ(c.queue_default_bandwidth, 1u);
   EXPECT_NO_THROW(c.validate());
   EXPECT_EQ(c.get("l2.ways"), 8u);
   for (const Config::KeyInfo &k : Config::keys())
      EXPECT_EQ(k.get(c), k.def) << k.key;
}

TEST(Config, DescribeListsEveryKeyWithItsDoc)
{
   const std::string d = Config::describe();
   for (const Config::KeyInfo &k : Config::keys()) {
      EXPECT_THAT(d, HasSubstr(k.key));
      EXPECT_THAT(d, HasSubstr(k.doc));
      EXPECT_GT(std::string(k.doc).size(), 20u) << k.key << " needs a real description";
   }
   EXPECT_THAT(d, HasSubstr("l2.size_bytes  (uint64, default 262144 (256 KiB)"));
}

TEST(Config, DocsTableIsUpToDate)
{
   const std::string path = std::string(VLG_SOURCE_ROOT) + "/docs/simulator.md";
   std::ifstream f(path);
   ASSERT_TRUE(f) << path;
   std::stringstream ss;
   ss << f.rdbuf();
   const std::string doc = ss.str();
   const std::string begin = "<!-- BEGIN config-table -->\n", end = "<!-- END config-table -->";
   size_t b = doc.find(begin), e = doc.find(end);
   ASSERT_NE(b, std::string::npos);
   ASSERT_NE(e, std::string::npos);
   const std::string table = doc.substr(b + begin.size(), e - b - begin.size());
   EXPECT_EQ(table, Config::describe_markdown())
      << "docs/simulator.md is out of date; replace the table between the markers with:\n"
      << Config::describe_markdown();
}

TEST(Config, NestedJsonWithComments)
{
   Config c;
   c.merge_json_text(R"(// a GPU with two clusters
{
  "gpcs": 2,            /* two */
  "l2": {"size_bytes": 524288, "ways": 16},
  "memory.latency_cycles": 300,
  "queues": {
    "default": {"capacity": 8},
    "cp.out_draw": {"latency": 3}
  }
})",
                     "gpu.json");
   EXPECT_EQ(c.gpcs, 2u);
   EXPECT_EQ(c.l2_size_bytes, 524288u);
   EXPECT_EQ(c.l2_ways, 16u);
   EXPECT_EQ(c.memory_latency_cycles, 300u);
   EXPECT_EQ(c.queue_default_capacity, 8u);
   ASSERT_EQ(c.queues.count("cp.out_draw"), 1u);
   EXPECT_EQ(c.queues["cp.out_draw"].latency, 3u);
   EXPECT_FALSE(c.queues["cp.out_draw"].capacity.has_value());
   EXPECT_EQ(c.spcs_per_gpc, 4u); /* untouched keys keep their defaults */
   EXPECT_NO_THROW(c.validate());
}

TEST(Config, UnknownKeysAreNamedWithSuggestion)
{
   EXPECT_THAT(merge_error(R"({"gpcz": 2})"),
               HasSubstr("gpu.json: unknown key 'gpcz' (did you mean 'gpcs'?)"));
   EXPECT_THAT(merge_error(R"({"l2": {"sise_bytes": 1024}})"),
               HasSubstr("unknown key 'l2.sise_bytes' (did you mean 'l2.size_bytes'?)"));
   EXPECT_THAT(merge_error(R"({"queues": {"default": {"latncy": 2}}})"),
               HasSubstr("unknown key 'queues.default.latncy' (did you mean "
                         "'queues.default.latency'?)"));
   EXPECT_THAT(merge_error(R"({"queues": {"cp.out": {"capactiy": 3}}})"),
               HasSubstr("unknown key 'queues.cp.out.capactiy' (did you mean "
                         "'queues.cp.out.capacity'?)"));
   /* Nothing close: no suggestion. */
   std::string m = merge_error(R"({"frobnicate": 1})");
   EXPECT_THAT(m, HasSubstr("unknown key 'frobnicate'"));
   EXPECT_THAT(m, ::testing::Not(HasSubstr("did you mean")));
}

TEST(Config, WrongTypesNameKeyAndExpectedType)
{
   EXPECT_THAT(merge_error(R"({"gpcs": "2"})"),
               HasSubstr("gpu.json: key 'gpcs': expected an unsigned integer (uint32), got "
                         "string \"2\""));
   EXPECT_THAT(merge_error(R"({"vram": {"size_bytes": true}})"),
               HasSubstr("key 'vram.size_bytes': expected an unsigned integer (uint64), got "
                         "boolean"));
   EXPECT_THAT(merge_error(R"({"gpcs": 2.5})"),
               HasSubstr("key 'gpcs': expected an unsigned integer (uint32), got a "
                         "floating-point number"));
   EXPECT_THAT(merge_error(R"({"gpcs": -1})"),
               HasSubstr("key 'gpcs': value -1 out of range [1, 64]"));
   EXPECT_THAT(merge_error(R"({"gpcs": 65})"),
               HasSubstr("key 'gpcs': value 65 out of range [1, 64]"));
   EXPECT_THAT(merge_error(R"({"l2": 5})"),
               HasSubstr("key 'l2': expected an object (a section of keys 'l2.*'), got number"));
   EXPECT_THAT(merge_error(R"({"queues": {"x.out": 4}})"),
               HasSubstr("key 'queues.x.out': expected an object"));
   EXPECT_THAT(merge_error(R"([1, 2])"), HasSubstr("must be a JSON object, got array"));
}

TEST(Config, MalformedJsonReportsLineAndColumn)
{
   /* Line 3 is `  "spcs_per_gpc": 4,,`: the second comma is column 21. */
   EXPECT_THAT(merge_error("{\n  \"gpcs\": 2,\n  \"spcs_per_gpc\": 4,,\n}\n"),
               HasSubstr("gpu.json:3:21: malformed JSON"));
   /* Line 2 is `  "gpcs" 2`: the 2 where a colon is expected is column 10. */
   EXPECT_THAT(merge_error("{\n  \"gpcs\" 2\n}"), HasSubstr("gpu.json:2:10: malformed JSON"));
   /* Unterminated object: the error is at the end of input, line 2 col 12
    * (one past the last character of `  "gpcs": 2`). */
   EXPECT_THAT(merge_error("{\n  \"gpcs\": 2"), HasSubstr("gpu.json:2:12: malformed JSON"));
}

/* Found by the fuzz target "config" (tests/fuzz): a number too large for a
 * double is nlohmann's out_of_range (406), not a parse_error, and escaped
 * merge_json_text as that instead of a ConfigError. */
TEST(Config, NumberOverflowIsMalformedJson)
{
   EXPECT_THAT(merge_error("{\"gpcs\": 2778e2778}"),
               AllOf(HasSubstr("gpu.json: malformed JSON"), HasSubstr("number overflow")));
}

TEST(Config, OverridesFromString)
{
   Config c;
   c.apply_overrides("gpcs=2,spcs_per_gpc=8, l2.size_bytes=512K ,vram.size_bytes=0x20000000,"
                     "queues.cp.out_draw.capacity=16");
   EXPECT_EQ(c.gpcs, 2u);
   EXPECT_EQ(c.spcs_per_gpc, 8u);
   EXPECT_EQ(c.l2_size_bytes, 524288u);
   EXPECT_EQ(c.vram_size_bytes, 536870912u);
   EXPECT_EQ(c.queues["cp.out_draw"].capacity, 16u);
   c.apply_overrides("");
   EXPECT_EQ(c.gpcs, 2u);
}

TEST(Config, OverrideErrors)
{
   Config c;
   EXPECT_THAT(error_of([&] { c.apply_overrides("gpcs"); }), HasSubstr("expected key=value"));
   EXPECT_THAT(error_of([&] { c.apply_overrides("gpcs=two"); }),
               HasSubstr("key 'gpcs': expected an unsigned integer"));
   EXPECT_THAT(error_of([&] { c.apply_overrides("gpcs=-1"); }),
               HasSubstr("key 'gpcs': expected an unsigned integer"));
   EXPECT_THAT(error_of([&] { c.apply_overrides("gpcs=100"); }),
               HasSubstr("key 'gpcs': value 100 out of range [1, 64]"));
   EXPECT_THAT(error_of([&] { c.apply_overrides("spc_per_gpc=2"); }),
               HasSubstr("unknown key 'spc_per_gpc' (did you mean 'spcs_per_gpc'?)"));
   EXPECT_EQ(c.gpcs, 1u);
}

/* Found by the fuzz target "config" (tests/fuzz): an override accepted a queue
 * name that is not UTF-8, and to_json() (a dump's config.json) then threw
 * nlohmann's type_error instead of writing it. */
TEST(Config, QueueNamesArePrintableAscii)
{
   Config c;
   EXPECT_THAT(error_of([&] { c.apply_overrides("queues.cp\xd8\x90\x8a_draw.capacity=8"); }),
               HasSubstr("a queue name is printable ASCII (a queue's or port's name), byte 0xd8"));
   EXPECT_THAT(error_of([&] { c.apply_overrides("queues.cp out.capacity=8"); }),
               HasSubstr("byte 0x20 is not"));
   EXPECT_TRUE(c.queues.empty());
   EXPECT_NO_THROW(c.to_json_string());
   c.apply_overrides("queues.cp.out_draw->gts.in_draw.capacity=8");
   EXPECT_EQ(c.queues["cp.out_draw->gts.in_draw"].capacity, 8u);
}

TEST(Config, ErrorsLeaveTheConfigurationUnchanged)
{
   Config c;
   /* "gpcs" is applied before "spcs_per_gpc" fails. */
   EXPECT_THROW(c.merge_json_text(R"({"gpcs": 2, "spcs_per_gpc": "x"})"), ConfigError);
   EXPECT_EQ(c.gpcs, 1u);
   EXPECT_THROW(c.apply_overrides("gpcs=3,queues.a.out.latency=2,spcs_per_gpc=oops"), ConfigError);
   EXPECT_EQ(c.gpcs, 1u);
   EXPECT_TRUE(c.queues.empty());
}

TEST(Config, ValidationNamesKeys)
{
   Config c;
   c.thread_group_width = 18;
   EXPECT_THAT(error_of([&] { c.validate(); }),
               HasSubstr("'thread_group_width' = 18 must be a multiple of 4"));
   c = Config();
   c.l2_ways = 3; /* 262144 / (3 * 64) is not a whole number of sets */
   EXPECT_THAT(error_of([&] { c.validate(); }), HasSubstr("'l2.ways' = 3"));
   c = Config();
   c.apply_overrides("queues.x.out.bandwidth=5");
   EXPECT_THAT(error_of([&] { c.validate(); }),
               HasSubstr("queue 'x.out': bandwidth 5 exceeds capacity 4"));
   c = Config();
   c.gpcs = 0;
   EXPECT_THAT(error_of([&] { Engine e(c); }), HasSubstr("key 'gpcs': value 0 out of range"));
}

TEST(Config, WriteAndLoadRoundTrip)
{
   Config c;
   c.apply_overrides("gpcs=3,l2.size_bytes=1M,deadlock.window_cycles=0,"
                     "queues.gts.in_draw.latency=7,queues.default.capacity=5");
   const std::string path = ::testing::TempDir() + "vlgpu_config_test.json";
   c.write_json(path);
   Config d = Config::load(path);
   EXPECT_EQ(d.to_json(), c.to_json());
   EXPECT_EQ(d.gpcs, 3u);
   EXPECT_EQ(d.l2_size_bytes, 1048576u);
   EXPECT_EQ(d.deadlock_window_cycles, 0u);
   EXPECT_EQ(d.queues["gts.in_draw"].latency, 7u);
   /* The written file is nested JSON with every key. */
   std::ifstream f(path);
   nlohmann::json j = nlohmann::json::parse(f);
   EXPECT_EQ(j["l2"]["size_bytes"], 1048576);
   EXPECT_EQ(j["queues"]["default"]["capacity"], 5);
   EXPECT_EQ(j["spcs_per_gpc"], 4);
}

/* Keys each within their range can still ask for terabytes together: a
 * config.json (a dump's, edited) is refused before the GPU is built. */
TEST(Config, TotalsOfWhatTheSimulatorAllocatesAreBounded)
{
   const std::string path = ::testing::TempDir() + "vlgpu_config_hostile.json";
   {
      /* 64 x 64 SPCs x (8 KiB + 1 GiB) of 64-byte lines: about 2^36 lines, more than 2^27 */
      std::ofstream f(path);
      f << R"({"gpcs": 64, "spcs_per_gpc": 64, "spc": {"l1_bytes": 1073741824}})";
   }
   EXPECT_THAT(error_of([&] { Config::load(path); }),
               HasSubstr(path + ": configuration: the caches hold "));
   Config c;
   c.apply_overrides("gpcs=64,spcs_per_gpc=64,spc.register_file_bytes=1G");
   /* 4096 x (1 GiB + 32 KiB) bytes > 16 GiB */
   EXPECT_THAT(error_of([&] { c.validate(); }),
               HasSubstr("the SPCs' register files and shared memories are " +
                         std::to_string(4096 * ((uint64_t(1) << 30) + 32768)) + " bytes"));
   Config big; /* the largest L2 (2^24 lines of 64 bytes) with the other defaults: accepted */
   big.apply_overrides("l2.size_bytes=1G");
   EXPECT_NO_THROW(big.validate());
}

TEST(Config, LoadErrors)
{
   EXPECT_THAT(error_of([] { Config::load("/nonexistent/gpu.json"); }),
               HasSubstr("cannot read configuration file '/nonexistent/gpu.json'"));
   EXPECT_THAT(error_of([] { Config().write_json("/nonexistent/dir/out.json"); }),
               HasSubstr("cannot write configuration file"));
}

} // namespace
