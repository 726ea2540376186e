/*
 * The cycle-mode modules' counters against their one list,
 * src/vlgpu/sim/units/counters.xml (kUnitCounters of the generated
 * sim/units/unit_counters.h): every module of a built CycleGpu registers
 * exactly the rows of its class, in their order (a counter added by hand
 * with add_counter() fails here), and the counter tables of
 * docs/simulator-modules.md are those rows.
 */
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "sim/core/engine.h"
#include "sim/units/cycle_gpu.h"
#include "sim/units/unit_counters.h"
#include "vlgpu_stats_keys.h"

using namespace vlgpu::sim;

namespace {

/** The rows of counters.xml for module class @cls, in file order. */
std::vector<UnitCounterRow>
rows_of(const std::string &cls)
{
   std::vector<UnitCounterRow> rows;
   for (const UnitCounterRow &r : kUnitCounters)
      if (cls == r.module)
         rows.push_back(r);
   return rows;
}

/** Every module class of counters.xml, in file order. */
std::vector<std::string>
classes()
{
   std::vector<std::string> out;
   for (const UnitCounterRow &r : kUnitCounters)
      if (out.empty() || out.back() != r.module)
         out.push_back(r.module);
   return out;
}

/** The class of the module named @name ("gpc1.spc3" -> "Spc", "cp.dma" ->
 *  "Dma", "l2" -> "L2"): its last name part without an SPC's index. */
std::string
class_of(const std::string &name)
{
   std::string part = name.substr(name.rfind('.') + 1);
   if (part.rfind("spc", 0) == 0)
      part = "spc";
   part[0] = char(std::toupper(static_cast<unsigned char>(part[0])));
   return part;
}

/** The table between the markers of @cls in docs/simulator-modules.md. */
std::string
markdown_of(const std::string &cls)
{
   std::string md = "| counter | kind | counts |\n|---|---|---|\n";
   for (const UnitCounterRow &r : rows_of(cls))
      md += std::string("| `") + r.key + "` | " + (r.cycles ? "cycles" : "event") + " | " + r.doc +
            " |\n";
   return md;
}

} // namespace

TEST(SimUnitCounters, ModulesRegisterTheirRowsInOrder)
{
   Config p;
   p.gpcs = 2;
   CycleGpu gpu(p);
   std::set<std::string> seen;
   for (const Module *m : gpu.engine().modules()) {
      const std::string cls = class_of(m->name());
      const std::vector<UnitCounterRow> rows = rows_of(cls);
      SCOPED_TRACE(m->name() + " (class " + cls + ")");
      ASSERT_EQ(m->counters().size(), rows.size());
      size_t i = 0;
      for (const Counter &c : m->counters()) {
         EXPECT_EQ(c.name(), rows[i].key) << "counter " << i;
         EXPECT_EQ(c.doc(), rows[i].doc) << "counter " << i;
         i++;
      }
      if (!rows.empty())
         seen.insert(cls);
   }
   for (const std::string &cls : classes())
      EXPECT_TRUE(seen.count(cls)) << cls << " of counters.xml is no module of the GPU";
}

/* The class each module reports (the generated counter struct sets it;
 * CycleGpu::modules(), vlg_drm_get_modules_json) is its class by name. */
TEST(SimUnitCounters, ModulesKnowTheirClass)
{
   Config p;
   p.gpcs = 2;
   p.spcs_per_gpc = 3;
   CycleGpu gpu(p);
   const std::vector<Gpu::ModuleName> mods = gpu.modules();
   ASSERT_EQ(mods.size(), gpu.engine().modules().size());
   size_t spcs = 0;
   for (size_t i = 0; i < mods.size(); i++) {
      EXPECT_EQ(mods[i].name, gpu.engine().modules()[i]->name());
      EXPECT_EQ(mods[i].module_class, class_of(mods[i].name)) << mods[i].name;
      spcs += mods[i].module_class == "Spc";
   }
   EXPECT_EQ(spcs, 6u);
}

/* The module counters the driver reads (VLG_STATS_DRIVER_COUNTERS in
 * vlgpu_stats_keys.h) are rows of counters.xml, in the class given there. */
TEST(SimUnitCounters, DriverReadsDescribedCounters)
{
#define VLG_CHECK(cls_, key_)                                                                      \
   {                                                                                               \
      bool found = false;                                                                          \
      for (const UnitCounterRow &r : rows_of(#cls_))                                               \
         found = found || std::string(r.key) == #key_;                                             \
      EXPECT_TRUE(found) << #cls_ "." #key_ " is not in counters.xml";                            \
   }
   VLG_STATS_DRIVER_COUNTERS(VLG_CHECK)
#undef VLG_CHECK
}

TEST(SimUnitCounters, DocsTablesMatchCountersXml)
{
   const std::string path = std::string(VLG_SOURCE_ROOT) + "/docs/simulator-modules.md";
   std::ifstream f(path);
   const std::string doc{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
   ASSERT_FALSE(doc.empty()) << "cannot read " << path;
   for (const std::string &cls : classes()) {
      const std::string begin = "<!-- BEGIN GENERATED counters " + cls +
                                " (src/vlgpu/sim/units/counters.xml) -->\n",
                        end = "<!-- END GENERATED counters " + cls + " -->";
      const size_t b = doc.find(begin), e = doc.find(end);
      ASSERT_TRUE(b != std::string::npos && e != std::string::npos && b < e)
         << path << ": no section for " << cls << "; add\n"
         << begin << markdown_of(cls) << end;
      EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), markdown_of(cls))
         << path << " is out of date; replace the table between the markers of " << cls
         << " with:\n"
         << markdown_of(cls);
   }
}
