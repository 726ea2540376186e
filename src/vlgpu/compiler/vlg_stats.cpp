/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_stats.cpp — static cycle estimate of a scheduled (and usually
 * allocated) shader, the model the scheduler optimises: one instruction
 * issues per cycle, in order; an instruction waits until the results it
 * reads (and the registers it overwrites) are ready, latencies from
 * vlg_op_table (docs/isa.md §5; memory ops at their minimum latency). Every
 * block counts once (no loop trip counts, no branch outcome); values from
 * other blocks are assumed ready. The simulator's cycle mode is the measure;
 * this is the shader-db style static number.
 */
#include <algorithm>

#include "vlg_passes.h"
#include "vlg_sched.h"

namespace vlgpu {

unsigned
estimate_cycles(const Shader &S)
{
   unsigned total = 0;
   for (const Block &B : S.blocks) {
      std::vector<std::pair<const Instr *, int>> issued; /* op, cycle */
      int t = -1;
      for (const Bundle &bu : B.bundles) {
         const Instr *ops[2] = {nullptr, nullptr};
         for (unsigned p = 0; p < 2; p++)
            if (bu.ph[p] >= 0 && !B.instrs[bu.ph[p]].dead)
               ops[p] = &B.instrs[bu.ph[p]];
         if (!ops[0] && !ops[1])
            continue;
         int issue = t + 1;
         for (unsigned p = 0; p < 2; p++) {
            if (!ops[p])
               continue;
            for (auto &prev : issued) {
               Dep d = dependency(S, *prev.first, *ops[p]);
               if (d.exists)
                  issue = std::max(issue, prev.second + (int)d.lat);
            }
         }
         for (unsigned p = 0; p < 2; p++)
            if (ops[p])
               issued.push_back({ops[p], issue});
         t = issue;
      }
      total += t + 1;
   }
   return total;
}

} // namespace vlgpu
