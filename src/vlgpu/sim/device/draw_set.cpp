/*
 * vlgpu simulator: draw-number sets (see draw_set.h).
 */
#include "draw_set.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace vlgpu::sim {

namespace {

bool
is_space(char c)
{
   return c == ' ' || c == '\t';
}

} // namespace

DrawSet
DrawSet::parse(std::string_view spec)
{
   DrawSet s;
   size_t i = 0;
   auto skip = [&] {
      while (i < spec.size() && is_space(spec[i]))
         i++;
   };
   auto fail = [&](const std::string &what) -> DrawSet {
      const std::string got = i < spec.size() ? fmt::format("'{}'", spec[i]) : "the end";
      throw std::invalid_argument(
         fmt::format("dump_draws '{}': character {}: expected {}, got {}", spec, i + 1, what, got));
   };
   auto number = [&](uint64_t &v) {
      skip();
      if (i >= spec.size() || spec[i] < '0' || spec[i] > '9')
         fail("a draw number");
      v = 0;
      while (i < spec.size() && spec[i] >= '0' && spec[i] <= '9') {
         const uint64_t d = uint64_t(spec[i] - '0');
         if (v > (UINT64_MAX - d) / 10)
            fail("a smaller draw number");
         v = v * 10 + d;
         i++;
      }
      skip();
   };

   skip();
   if (i == spec.size())
      return s; /* all */
   s.all_ = false;
   for (;;) {
      uint64_t a, b;
      number(a);
      b = a;
      if (i < spec.size() && spec[i] == '-') {
         i++;
         number(b);
         if (b < a)
            throw std::invalid_argument(
               fmt::format("dump_draws '{}': range {}-{} ends before it starts", spec, a, b));
      }
      s.ranges_.emplace_back(a, b);
      if (i == spec.size())
         break;
      if (spec[i] != ',')
         fail("',' or '-'");
      i++;
   }
   std::sort(s.ranges_.begin(), s.ranges_.end());
   std::vector<std::pair<uint64_t, uint64_t>> merged;
   for (const auto &r : s.ranges_) {
      if (!merged.empty() &&
          (merged.back().second == UINT64_MAX || r.first <= merged.back().second + 1))
         merged.back().second = std::max(merged.back().second, r.second);
      else
         merged.push_back(r);
   }
   s.ranges_ = std::move(merged);
   return s;
}

bool
DrawSet::contains(uint64_t draw) const
{
   if (all_)
      return true;
   auto it = std::upper_bound(ranges_.begin(), ranges_.end(), std::make_pair(draw, UINT64_MAX));
   if (it == ranges_.begin())
      return false;
   --it;
   return draw >= it->first && draw <= it->second;
}

std::string
DrawSet::to_string() const
{
   if (all_)
      return "all";
   std::string r;
   for (const auto &[a, b] : ranges_) {
      if (!r.empty())
         r += ',';
      r += a == b ? fmt::format("{}", a) : fmt::format("{}-{}", a, b);
   }
   return r;
}

} // namespace vlgpu::sim
