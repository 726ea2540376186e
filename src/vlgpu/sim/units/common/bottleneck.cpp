/*
 * vlgpu cycle-mode GPU: names of the bottleneck report's causes
 * (bottleneck.h).
 */
#include "sim/units/common/bottleneck.h"

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

const char *
cause_doc(Cause c)
{
   return kDocs[uint32_t(c)];
}

const char *const *
cause_names(uint32_t *count)
{
   *count = uint32_t(sizeof(kNames) / sizeof(kNames[0]));
   return kNames;
}

std::string
causes_markdown()
{
   std::string s = "| # | cause | a cycle is charged to it when (and no cause above holds) |\n"
                   "|---|---|---|\n";
   for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); i++)
      s += "| " + std::to_string(i + 1) + " | `" + kNames[i] + "` | " + kDocs[i] + " |\n";
   return s;
}

} // namespace vlgpu::sim
