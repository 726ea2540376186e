/*
 * vlgpu simulator: the frame plan of a sampled run (frame_sampling.h).
 */
#include "sim/device/frame_sampling.h"

#include <charconv>
#include <stdexcept>
#include <string>

namespace vlgpu::sim {

namespace {

[[noreturn]] void
fail(std::string_view spec, const std::string &why)
{
   throw std::invalid_argument("sample '" + std::string(spec) + "': " + why +
                               " (expected PERIOD[:WARMUP][,seed=N][,skip])");
}

/** A decimal number filling @text, or throw naming @what. */
uint64_t
number(std::string_view text, std::string_view spec, const char *what)
{
   uint64_t v = 0;
   const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
   if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      fail(spec, std::string(what) + " is not a decimal number: '" + std::string(text) + "'");
   return v;
}

/** SplitMix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom
 * number generators", OOPSLA 2014): a well-mixed 64-bit hash of @x. */
uint64_t
mix64(uint64_t x)
{
   x += 0x9e3779b97f4a7c15ull;
   x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
   x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
   return x ^ (x >> 31);
}

} // namespace

FrameSampling
FrameSampling::parse(std::string_view spec)
{
   size_t comma = spec.find(',');
   const std::string_view plan = spec.substr(0, comma);
   const size_t colon = plan.find(':');
   FrameSampling s;
   s.period_ = number(plan.substr(0, colon), spec, "PERIOD");
   if (s.period_ == 0)
      fail(spec, "PERIOD must be at least 1");
   s.warmup_ = colon == std::string_view::npos ? (s.period_ > 1 ? 1 : 0)
                                               : number(plan.substr(colon + 1), spec, "WARMUP");
   if (s.warmup_ >= s.period_)
      fail(spec, "WARMUP must be below PERIOD");
   while (comma != std::string_view::npos) {
      const size_t next = spec.find(',', comma + 1);
      const std::string_view opt = spec.substr(comma + 1, next - comma - 1);
      if (opt == "skip")
         s.skip_ = true;
      else if (opt.substr(0, 5) == "seed=")
         s.seed_ = number(opt.substr(5), spec, "seed");
      else
         fail(spec, "unknown option '" + std::string(opt) + "'");
      comma = next;
   }
   return s;
}

int64_t
FrameSampling::block(uint64_t frame) const
{
   return enabled() && frame > 0 ? int64_t((frame - 1) / period_) : -1;
}

uint64_t
FrameSampling::measured_frame(uint64_t b) const
{
   const uint64_t choices = period_ - warmup_; /* positions warmup .. period-1 */
   return 1 + b * period_ + warmup_ + mix64(seed_ ^ mix64(b)) % choices;
}

FrameSampling::Role
FrameSampling::role(uint64_t frame) const
{
   const int64_t b = block(frame);
   if (b < 0)
      return Role::Measured;
   const uint64_t m = measured_frame(uint64_t(b));
   if (frame == m)
      return Role::Measured;
   if (frame < m && m - frame <= warmup_)
      return Role::Warmup;
   return skip_ ? Role::Skipped : Role::Functional;
}

const char *
FrameSampling::role_name(Role r)
{
   switch (r) {
   case Role::Measured: return "measured";
   case Role::Warmup: return "warmup";
   case Role::Functional: return "functional";
   case Role::Skipped: return "skipped";
   }
   return "?";
}

} // namespace vlgpu::sim
