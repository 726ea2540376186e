/*
 * vlgpu simulator core: CycleAttribution, a top-down breakdown of the
 * simulated cycles by cause. Every cycle is charged to exactly one cause, so
 * the causes' cycles add up to the period (100 %).
 *
 * Model: the causes form a list in priority order (index 0 first). Modules
 * hold flags (CauseFlag), each naming one cause; a module says at a tick
 * whether its flag holds from that cycle on (set), and a sleeping module's
 * flags keep what its last tick said (as CycleCounter). A cycle is charged
 * to the first cause of the list with at least one flag holding, or to the
 * last cause (the "nothing holds" cause) if none does. The attribution is
 * lazy: cycles are charged when the highest cause changes and when the
 * statistics are read, so the cost is per flag change, not per cycle.
 *
 * The list itself (which causes, which order and why) belongs to the GPU
 * model, not to the core: the cycle-mode GPU's is in
 * sim/units/common/bottleneck.h (docs/simulator.md "Bottleneck report").
 *
 *    CycleAttribution attr({"mc_bandwidth", "spc_issue", "idle"});
 *    eng.set_attribution(&attr);            // before finalize()
 *    CauseFlag &f = module.add_cause_flag(1); // in a module's constructor
 *    f.set(now, issued);                    // in its tick()
 *    eng.stats().causes;                    // {name, cycles} in list order
 */
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/types.h"

namespace vlgpu::sim {

class CycleAttribution;

/**
 * One holder's claim that a cause holds (a module may hold several, and
 * several modules may claim the same cause: it holds while any claim
 * does). Unbound (no attribution) until Engine::finalize(); set() is then a
 * no-op apart from remembering the state.
 */
class CauseFlag {
 public:
   explicit CauseFlag(uint32_t cause) : cause_(cause) {}

   /** From cycle @now on the cause holds (@on) or not, as far as this flag
    *  is concerned. @now must not be earlier than the last call's. */
   inline void set(Cycle now, bool on);
   bool on() const { return on_; }
   uint32_t cause() const { return cause_; }

 private:
   friend class CycleAttribution;
   CycleAttribution *attr_ = nullptr;
   uint32_t cause_;
   bool on_ = false;
};

/** The attribution of cycles to causes (see the file comment). */
class CycleAttribution {
 public:
   /** Up to 64 cause names in priority order; the last is charged when no
    *  flag holds. @throws SimError for an empty or too long list. */
   explicit CycleAttribution(std::vector<std::string> causes);

   /** Bind @f (Engine::finalize); a flag already on counts from @now. */
   void bind(CauseFlag &f, Cycle now);

   /** Charge the cycles up to @now (before reading the totals). */
   void sync(Cycle now)
   {
      if (now > since_) {
         cycles_[top_] += now - since_;
         since_ = now;
      }
   }
   /** Zero the totals; counting restarts at @now with the flags as they are. */
   void reset(Cycle now);

   /** {name, cycles} per cause, in priority order, up to the last sync(). */
   std::vector<std::pair<std::string, uint64_t>> totals() const;
   const std::vector<std::string> &names() const { return names_; }

 private:
   friend class CauseFlag;
   void change(uint32_t cause, Cycle now, bool on)
   {
      sync(now);
      if (on) {
         if (holders_[cause]++ == 0)
            mask_ |= uint64_t(1) << cause;
      } else if (--holders_[cause] == 0) {
         mask_ &= ~(uint64_t(1) << cause);
      }
      top_ = mask_ ? uint32_t(__builtin_ctzll(mask_)) : last_;
   }

   std::vector<std::string> names_;
   std::vector<uint64_t> cycles_;
   std::vector<uint32_t> holders_; /**< flags on, per cause */
   uint64_t mask_ = 0;             /**< causes with a flag on */
   uint32_t last_ = 0;             /**< the "nothing holds" cause */
   uint32_t top_ = 0;              /**< the cause charged now */
   Cycle since_ = 0;               /**< charged up to here */
};

inline void
CauseFlag::set(Cycle now, bool on)
{
   if (on == on_)
      return;
   on_ = on;
   if (attr_)
      attr_->change(cause_, now, on);
}

} // namespace vlgpu::sim
