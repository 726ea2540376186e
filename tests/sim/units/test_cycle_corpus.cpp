/*
 * The cycle regression corpus (tests/sim/corpus/README.md): replayed dumps of
 * real GL programs and the whole-GPU test scenes (graphics and compute), run
 * in cycle mode, must take
 * exactly the cycles recorded in tests/sim/corpus/cycles.json, and the
 * replayed dumps must still give their recorded pixels. A timing change is
 * never silent: it fails here until the file is regenerated on purpose
 *
 *   VLGPU_UPDATE_CYCLE_CORPUS=1 build/standalone/tests/sim/units/test_cycle_corpus
 *
 * and committed with the reason in the commit message.
 */
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compute_scenes.h"
#include "gs_scenes.h"
#include "scenes.h"
#include "sim/dump/dump.h"
#include "sim/units/cycle_gpu.h"
#include "units_test_util.h"

namespace vlgpu::sim::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

const fs::path kCorpus = fs::path(VLG_SOURCE_ROOT) / "tests/sim/corpus";

/** What the corpus pins for one workload: total cycles, the cycles of each
 *  command that reports them, and the MC's bytes (the memory traffic). */
json
measure(const SubmitResult &r)
{
   json j;
   j["cycles"] = r.cycles;
   json draws = json::array();
   for (const DrawReport &d : r.draws)
      draws.push_back(d.cycles);
   j["draw_cycles"] = draws;
   json dispatches = json::array();
   for (const DispatchReport &d : r.dispatches)
      dispatches.push_back(d.cycles);
   j["dispatch_cycles"] = dispatches;
   const auto &mc = r.stats.at("modules").at("mc").at("counters");
   j["mc_read_bytes"] = mc.at("read_bytes");
   j["mc_write_bytes"] = mc.at("write_bytes");
   return j;
}

json
run_corpus()
{
   json out;
   /* replayed dumps (tests/sim/corpus/dumps/NAME = a draw-NNNNNN directory)
    * with the configuration they were recorded with */
   std::map<std::string, fs::path> dumps;
   for (const auto &e : fs::directory_iterator(kCorpus / "dumps"))
      if (e.is_directory())
         dumps[e.path().filename().string()] = e.path();
   for (const auto &[name, dir] : dumps) {
      const Config cfg = dump_config(dir.string());
      CycleGpu gpu(cfg);
      const ReplayResult r = replay_dump(dir.string(), gpu, cfg, "");
      EXPECT_FALSE(r.report.faulted) << name << ": " << r.report.fault;
      for (const ReplayComparison &c : r.comparisons)
         EXPECT_EQ(c.differing, 0u) << name << " " << c.name << ": " << c.first_difference;
      out["dumps"][name] = measure(r.submit);
   }
   /* the whole-GPU scenes (scenes.h) on the default configuration */
   for (const NamedScene &sc : all_scenes()) {
      Scene s;
      sc.build(s);
      CycleGpu gpu{Config{}};
      const ModeRun m = run_scene(s, gpu);
      EXPECT_TRUE(m.res.faults.empty()) << sc.name;
      out["scenes"][sc.name] = measure(m.res);
   }
   /* the compute scenes (compute_scenes.h) on the default configuration */
   for (const CsNamedScene &sc : kCsScenes) {
      CsScene cs;
      sc.build(cs);
      cs.s.finish();
      CycleGpu gpu{Config{}};
      const ModeRun m = run_scene(cs.s, gpu);
      EXPECT_TRUE(m.res.faults.empty()) << sc.name;
      out["scenes"][std::string("compute_") + sc.name] = measure(m.res);
   }
   /* the geometry-shader scenes (gs_scenes.h) on the default configuration */
   for (const auto &[name, build] :
        {std::pair<const char *, void (*)(GsScene &)>{"gs_mixed",
                                                      [](GsScene &x) { build_gs_mixed(x, false); }},
         {"gs_shapes", build_gs_shapes}}) {
      GsScene x;
      build(x);
      CycleGpu gpu{Config{}};
      const ModeRun m = run_scene(x.s, gpu);
      EXPECT_TRUE(m.res.faults.empty()) << name;
      out["scenes"][name] = measure(m.res);
   }
   return out;
}

TEST(CycleCorpus, CyclesAreTheRecordedOnes)
{
   const json now = run_corpus();
   const fs::path file = kCorpus / "cycles.json";
   if (std::getenv("VLGPU_UPDATE_CYCLE_CORPUS")) {
      std::ofstream(file) << now.dump(1) << "\n";
      GTEST_SKIP() << "rewrote " << file << ": commit it with the reason for the change";
   }
   std::ifstream f(file);
   ASSERT_TRUE(f) << file << " missing: VLGPU_UPDATE_CYCLE_CORPUS=1 writes it";
   const json want = json::parse(f);
   for (const char *kind : {"dumps", "scenes"}) {
      ASSERT_TRUE(want.contains(kind)) << file;
      for (const auto &[name, w] : want[kind].items()) {
         ASSERT_TRUE(now[kind].contains(name))
            << kind << "/" << name << " is in " << file << " but no longer in the corpus";
         EXPECT_EQ(now[kind][name], w)
            << kind << "/" << name << ": the simulated timing changed. If on purpose, "
            << "rerun with VLGPU_UPDATE_CYCLE_CORPUS=1 and commit cycles.json with the reason.\n"
            << "recorded: " << w.dump() << "\nnow:      " << now[kind][name].dump();
      }
      for (const auto &[name, v] : now[kind].items())
         EXPECT_TRUE(want[kind].contains(name))
            << kind << "/" << name << " is new: record it with VLGPU_UPDATE_CYCLE_CORPUS=1";
   }
}

} // namespace
} // namespace vlgpu::sim::test
