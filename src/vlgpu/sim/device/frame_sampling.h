/*
 * vlgpu simulator: which frames a sampled run times (vlg_drm_create_args::
 * sample, VLGPU_SAMPLE; issue "Speed", item 3: sampled simulation).
 *
 * "PERIOD[:WARMUP]": of every PERIOD frames (frames count from 0 as
 * vlg_drm_end_frame counts them) the last one is *measured* (frames
 * PERIOD-1, 2*PERIOD-1, ...) and the WARMUP frames before it are *warm-up*
 * frames: both run on the cycle-mode GPU, the warm-up frames so that the
 * measured one starts with the caches, queues and MSHR state a timed frame
 * would leave (the cycle-mode caches hold tags only, docs/simulator.md, so
 * the frames run functionally in between cannot make them wrong, only
 * stale). Every other frame runs on the functional GPU: the same pixels and
 * functional counters (vertices, fragments, instructions), no cycles.
 * WARMUP defaults to 1 (0 when PERIOD is 1) and must be below PERIOD;
 * "1" times every frame (a plain cycle-mode run, statistic for statistic).
 */
#pragma once

#include <cstdint>
#include <string_view>

namespace vlgpu::sim {

class FrameSampling {
 public:
   enum class Role { Measured, Warmup, Functional };

   /** No sampling: every frame is Measured. */
   FrameSampling() = default;
   /**
    * Parse "PERIOD[:WARMUP]" (decimal; PERIOD >= 1, WARMUP < PERIOD).
    * @throws std::invalid_argument "sample 'TEXT': ..." saying what is wrong.
    */
   static FrameSampling parse(std::string_view spec);

   bool enabled() const { return period_ != 0; }
   uint64_t period() const { return period_; }
   uint64_t warmup() const { return warmup_; }
   /** What frame @frame is in this plan (Measured for every frame when off). */
   Role role(uint64_t frame) const;
   /** "measured", "warmup" or "functional" (the statistics' "sample"). */
   static const char *role_name(Role r);

 private:
   uint64_t period_ = 0, warmup_ = 0;
};

} // namespace vlgpu::sim
