/*
 * vlgpu simulator: which frames a sampled run times (vlg_drm_create_args::
 * sample, VLGPU_SAMPLE; issue "Speed", item 3: sampled simulation).
 *
 * "PERIOD[:WARMUP][,seed=N][,skip]" (frames count from 0 as
 * vlg_drm_end_frame counts them):
 *  - frame 0 (a program's set-up frame: uploads, first use of every shader)
 *    is *measured*: timed on the cycle-mode GPU, from cold caches as in a
 *    full run;
 *  - frames 1, 2, ... form *blocks* (strata) of PERIOD frames: block b holds
 *    frames 1 + b*PERIOD .. (b+1)*PERIOD. In each block one frame, at a
 *    position drawn uniformly from WARMUP .. PERIOD-1 (a hash of the seed and
 *    b: the same plan for the same seed, independent draws per block), is
 *    measured, and the WARMUP frames before it in the block are *warm-up*
 *    frames, timed too (so the measured one starts with the caches, queues
 *    and MSHR state a timed frame would leave; the cycle-mode caches hold
 *    tags only, docs/simulator.md, so frames run elsewhere in between make
 *    them stale, never wrong);
 *  - every other frame runs on the functional GPU (the same pixels and
 *    functional counters, no cycles), or with `skip` is *skipped*: its DRAW
 *    and DISPATCH commands are read and reported but not run
 *    (make_functional_gpu_skipping_work, gpu.h), so its render targets keep
 *    what they held.
 * One measured frame drawn at random per block is stratified sampling with
 * one unit per stratum (W. G. Cochran, "Sampling Techniques", 3rd ed.,
 * 1977, stratified random sampling; collapsed strata): the block's cycles
 * are estimated without bias as PERIOD times the measured frame's, and
 * adjacent blocks collapsed in pairs give the variance (scripts/sampling.py
 * has the estimator). WARMUP defaults to 1 (0 when PERIOD is 1) and
 * must be below PERIOD; the seed defaults to 1; "1" times every frame (a
 * plain cycle-mode run, statistic for statistic).
 */
#pragma once

#include <cstdint>
#include <string_view>

namespace vlgpu::sim {

class FrameSampling {
 public:
   enum class Role { Measured, Warmup, Functional, Skipped };

   /** No sampling: every frame is Measured. */
   FrameSampling() = default;
   /**
    * Parse "PERIOD[:WARMUP][,seed=N][,skip]" (decimal; PERIOD >= 1,
    * WARMUP < PERIOD, N < 2^64).
    * @throws std::invalid_argument "sample 'TEXT': ..." saying what is wrong.
    */
   static FrameSampling parse(std::string_view spec);

   bool enabled() const { return period_ != 0; }
   uint64_t period() const { return period_; }
   uint64_t warmup() const { return warmup_; }
   uint64_t seed() const { return seed_; }
   /** Whether frames neither measured nor warm-up are skipped (not drawn). */
   bool skip() const { return skip_; }
   /** What frame @frame is in this plan (Measured for every frame when off). */
   Role role(uint64_t frame) const;
   /** The block (stratum) of @frame: -1 for frame 0 (its own stratum of one
    * frame) and when sampling is off, else (frame - 1) / PERIOD. */
   int64_t block(uint64_t frame) const;
   /** The frame measured in block @b (0-based). */
   uint64_t measured_frame(uint64_t b) const;
   /** "measured", "warmup", "functional" or "skipped" (the statistics' "sample"). */
   static const char *role_name(Role r);

 private:
   uint64_t period_ = 0, warmup_ = 0, seed_ = 1;
   bool skip_ = false;
};

} // namespace vlgpu::sim
