/*
 * vlgpu simulator core: CycleAttribution (see attribution.h).
 */
#include "sim/core/attribution.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace vlgpu::sim {

CycleAttribution::CycleAttribution(std::vector<std::string> causes) : names_(std::move(causes))
{
   if (names_.empty() || names_.size() > 64)
      throw SimError(fmt::format("CycleAttribution: {} causes (1..64 allowed)", names_.size()));
   cycles_.assign(names_.size(), 0);
   holders_.assign(names_.size(), 0);
   last_ = uint32_t(names_.size() - 1);
   top_ = last_;
}

void
CycleAttribution::bind(CauseFlag &f, Cycle now)
{
   if (f.cause_ >= names_.size())
      throw SimError(fmt::format("CauseFlag: cause {} of {} causes", f.cause_, names_.size()));
   f.attr_ = this;
   if (f.on_)
      change(f.cause_, now, true);
}

void
CycleAttribution::reset(Cycle now)
{
   sync(now);
   cycles_.assign(names_.size(), 0);
   since_ = now;
}

std::vector<std::pair<std::string, uint64_t>>
CycleAttribution::totals() const
{
   std::vector<std::pair<std::string, uint64_t>> t;
   t.reserve(names_.size());
   for (size_t i = 0; i < names_.size(); i++)
      t.emplace_back(names_[i], cycles_[i]);
   return t;
}

} // namespace vlgpu::sim
