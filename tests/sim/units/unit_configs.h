/*
 * The cycle-mode GPU configurations the whole-GPU tests run every scene in
 * (test_cycle_gpu.cpp, test_stream_output.cpp): the default machine, the
 * thread-group widths 4 and 64, two GPCs with small PE tiles, a "tight"
 * machine where every queue holds one entry and every cache is tiny (most
 * back-pressure), and an "overlap" machine with many draws in flight and
 * wide PE/OMU/L2 paths.  Overrides use the syntax of
 * Config::apply_overrides (docs/simulator.md "Configuration").
 */
#pragma once

#include "sim/core/config.h"

namespace vlgpu::sim::test {

struct NamedConfig {
   const char *name;
   const char *overrides; /* Config::apply_overrides */
};

inline const NamedConfig kConfigs[] = {
   {"default", ""},
   {"w4", "thread_group_width=4"},
   {"w64", "thread_group_width=64,spc.register_file_bytes=256K"},
   {"two_gpcs", "gpcs=2,spcs_per_gpc=2,pe.tile_pixels=8"},
   {"tight",
    "queues.default.capacity=1,spcs_per_gpc=1,thread_groups_per_spc=1,l2.size_bytes=1K,"
    "gts.sub_block_elements=5,ge.sub_blocks_in_flight=1,cp.max_draws_in_flight=1,l2.mshrs=1,"
    "omu.cache_bytes=256,spc.icache_bytes=256,spc.l1_bytes=256,memory.queue_entries=1,"
    "cp.prefetch_lines=1"},
   {"overlap", "cp.max_draws_in_flight=8,gts.sub_block_elements=37,pe.quads_per_cycle=4,"
                   "omu.quads_per_cycle=2,l2.requests_per_cycle=4"},
};

/** The validated Config of one configuration (throws on a bad override). */
inline Config
params(const NamedConfig &c)
{
   Config p;
   p.apply_overrides(c.overrides);
   p.validate();
   return p;
}

} // namespace vlgpu::sim::test
