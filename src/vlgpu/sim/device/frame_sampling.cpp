/*
 * vlgpu simulator: the frame plan of a sampled run (frame_sampling.h).
 */
#include "sim/device/frame_sampling.h"

#include <charconv>
#include <stdexcept>
#include <string>

namespace vlgpu::sim {

namespace {

/** A decimal number filling @text, or throw naming @what. */
uint64_t
number(std::string_view text, std::string_view spec, const char *what)
{
   uint64_t v = 0;
   const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
   if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      throw std::invalid_argument("sample '" + std::string(spec) + "': " + what +
                                  " is not a decimal number: '" + std::string(text) + "'");
   return v;
}

} // namespace

FrameSampling
FrameSampling::parse(std::string_view spec)
{
   const size_t colon = spec.find(':');
   FrameSampling s;
   s.period_ = number(spec.substr(0, colon), spec, "PERIOD");
   if (s.period_ == 0)
      throw std::invalid_argument("sample '" + std::string(spec) + "': PERIOD must be at least 1");
   s.warmup_ = colon == std::string_view::npos ? (s.period_ > 1 ? 1 : 0)
                                               : number(spec.substr(colon + 1), spec, "WARMUP");
   if (s.warmup_ >= s.period_)
      throw std::invalid_argument("sample '" + std::string(spec) +
                                  "': WARMUP must be below PERIOD (expected PERIOD[:WARMUP])");
   return s;
}

FrameSampling::Role
FrameSampling::role(uint64_t frame) const
{
   if (!enabled())
      return Role::Measured;
   const uint64_t pos = frame % period_; /* measured at pos == period - 1 */
   if (pos == period_ - 1)
      return Role::Measured;
   return period_ - 1 - pos <= warmup_ ? Role::Warmup : Role::Functional;
}

const char *
FrameSampling::role_name(Role r)
{
   switch (r) {
   case Role::Measured: return "measured";
   case Role::Warmup: return "warmup";
   case Role::Functional: return "functional";
   }
   return "?";
}

} // namespace vlgpu::sim
