/*
 * vlgpu cycle-mode GPU: names of the bottleneck report's causes
 * (bottleneck.h).
 */
#include "sim/units/common/bottleneck.h"

#include <iterator>

namespace vlgpu::sim {

namespace {
#define VLG_BOTTLENECK_NAME(id, name, doc) name,
const char *const kNames[] = {VLG_BOTTLENECK_CAUSES(VLG_BOTTLENECK_NAME)};
#undef VLG_BOTTLENECK_NAME
#define VLG_BOTTLENECK_DOC(id, name, doc) doc,
const char *const kDocs[] = {VLG_BOTTLENECK_CAUSES(VLG_BOTTLENECK_DOC)};
#undef VLG_BOTTLENECK_DOC
} // namespace

const char *
cause_name(Cause c)
{
   return kNames[uint32_t(c)];
}

std::vector<std::string>
cause_names()
{
   return std::vector<std::string>(std::begin(kNames), std::end(kNames));
}

std::string
causes_markdown()
{
   std::string s = "| # | cause | a cycle is charged to it when (and no cause above holds) |\n"
                   "|---|---|---|\n";
   for (size_t i = 0; i < std::size(kNames); i++)
      s += "| " + std::to_string(i + 1) + " | `" + kNames[i] + "` | " + kDocs[i] + " |\n";
   return s;
}

} // namespace vlgpu::sim
