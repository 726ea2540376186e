/*
 * vlgpu simulator: the state of one SPC thread group (docs/simulator-spc.md,
 * docs/isa.md section 1).
 *
 * A thread group is W lanes (threads) executed in lockstep, W = 1..64 (a
 * configuration value, 16 by default; a multiple of 4 for fragment groups,
 * whose lanes 4k..4k+3 form the 2x2 quad (x,y), (x+1,y), (x,y+1), (x+1,y+1)).
 * Per lane it holds the registers R0..R(num_regs-1) (vec4 of 32-bit words;
 * only num_regs are allocated, as shader_state.num_regs says), the
 * predicates P0..P3, A0, LC and its own PC.
 *
 * Lane masks (bit i = lane i):
 *  - live:   the lane holds a thread (a vertex, or a pixel of a quad that is
 *            rasterised); lanes outside it never execute;
 *  - helper: live lanes that only exist to complete a quad (cover no
 *            sample); they execute so derivatives are defined but their
 *            outputs are discarded (docs/isa.md section 1);
 *  - killed: live lanes demoted by BRC.KILL (become helpers);
 *  - ended:  lanes that executed BRC.END.
 * Outputs are meaningful for output_mask() = live & ~helper & ~killed.
 *
 * Register layout (SoA): component c of register r of lane l is word
 * (r * 4 + c) * S + l, S = W rounded up to a multiple of kLaneChunk (16),
 * so an op's loop over the lanes of one component is contiguous and
 * vectorisable; the padding lanes are never live.
 *
 * The pipeline: construct (or reset()) a group, set the masks, preload the
 * inputs with set()/set_f() (or lanes() for a whole component), call run()
 * or step() (executor.h), then read outputs with get()/get_f().
 */
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "vlg_hw.h"

#include "common/bits.h"

namespace vlgpu::sim {

/** Largest thread-group width (lane masks are 64-bit). */
constexpr unsigned kMaxLanes = 64;
/** Register rows are padded to a multiple of this many lanes, so the
 *  executor's lane loops have a constant trip count the compiler vectorises. */
constexpr unsigned kLaneChunk = 16;

class ThreadGroup {
 public:
   /**
    * @width     lanes, 1..64; a multiple of 4 for VLG_SHADER_STAGE_FRAGMENT.
    * @num_regs  vec4 registers per lane, 1..128 (shader_state.num_regs);
    *            an instruction naming R(num_regs) or above faults.
    * @stage     VLG_SHADER_STAGE_VERTEX, _FRAGMENT (DDX/DDY, KILL, quads) or
    *            _COMPUTE (MEM, LID, WGID).
    * @group_id  thread-group sequence number inside the draw, or inside the
    *            workgroup for compute (MVS TGID and fault reports).
    * All lanes start live, not helpers, registers and coordinate registers 0.
    * std::invalid_argument on a bad width/num_regs/stage.
    */
   ThreadGroup(unsigned width, unsigned num_regs, vlg_shader_stage stage, uint32_t group_id = 0)
   {
      reset(width, num_regs, stage, group_id);
   }

   /** Reinitialises the group as the constructor does, reusing its storage. */
   void reset(unsigned width, unsigned num_regs, vlg_shader_stage stage, uint32_t group_id = 0);

   unsigned width() const { return width_; }
   /** Words between two register rows: width rounded up to kLaneChunk. */
   unsigned stride() const { return stride_; }
   unsigned num_regs() const { return num_regs_; }
   vlg_shader_stage stage() const { return stage_; }
   bool is_fragment() const { return stage_ == VLG_SHADER_STAGE_FRAGMENT; }
   uint32_t group_id() const { return group_id_; }
   /** Mask of all W lanes. */
   uint64_t all_lanes() const { return width_ == 64 ? ~uint64_t(0) : (uint64_t(1) << width_) - 1; }

   /** Lanes holding a thread (default: all). Set before the first step. */
   void set_live_mask(uint64_t m) { live_ = m & all_lanes(); }
   /** Quad-completion lanes of a fragment group (default: none). */
   void set_helper_mask(uint64_t m) { helper_ = m & all_lanes(); }
   uint64_t live_mask() const { return live_; }
   uint64_t helper_mask() const { return helper_; }
   uint64_t killed_mask() const { return killed_; }
   uint64_t ended_mask() const { return ended_; }
   /** Lanes whose outputs count: live, neither helper nor killed. */
   uint64_t output_mask() const { return live_ & ~helper_ & ~killed_; }
   /** True once every live lane ended, or only helper/killed lanes are left
    *  (nothing they compute is observable, so the group stops). */
   bool done() const { return done_; }
   /** True once the first instruction issued (the lanes' PCs are set then). */
   bool started() const { return started_; }
   /** Compute: local_invocation_index of lane 0 (thread group k of a
    *  workgroup holds indices k*W..k*W+W-1; MVS LID derives x, y, z from it
    *  and ShaderResources::block). Default 0. */
   void set_local_base(uint32_t base) { local_base_ = base; }
   uint32_t local_base() const { return local_base_; }
   /** Compute: true after the group issued a MEM.BAR and until
    *  release_barrier(); run() returns and step() issues nothing meanwhile
    *  (the workgroup scheduler releases it once every thread group of the
    *  workgroup is at the barrier or done). */
   bool at_barrier() const { return at_barrier_; }
   void release_barrier() { at_barrier_ = false; }

   /** Instructions the group has issued so far (the watchdog's count). */
   uint64_t instructions() const { return executed_; }

   /** Register word R[reg].comp of @lane (raw 32 bits). Preconditions
    *  (asserted in debug builds): lane < width, reg < num_regs, comp < 4. */
   uint32_t get(unsigned lane, unsigned reg, unsigned comp) const
   {
      assert(lane < width_ && reg < num_regs_ && comp < 4);
      return regs_[(reg * 4 + comp) * stride_ + lane];
   }
   void set(unsigned lane, unsigned reg, unsigned comp, uint32_t v)
   {
      assert(lane < width_ && reg < num_regs_ && comp < 4);
      regs_[(reg * 4 + comp) * stride_ + lane] = v;
   }
   float get_f(unsigned lane, unsigned reg, unsigned comp) const
   {
      return as_float(get(lane, reg, comp));
   }
   void set_f(unsigned lane, unsigned reg, unsigned comp, float f)
   {
      set(lane, reg, comp, as_uint(f));
   }
   /** The W words of component @comp of register @reg, lane 0 first (bulk
    *  preload/readback; rows of different components are stride() words apart). */
   uint32_t *lanes(unsigned reg, unsigned comp)
   {
      assert(reg < num_regs_ && comp < 4);
      return &regs_[(reg * 4 + comp) * stride_];
   }
   const uint32_t *lanes(unsigned reg, unsigned comp) const
   {
      assert(reg < num_regs_ && comp < 4);
      return &regs_[(reg * 4 + comp) * stride_];
   }

   /** Coordinate registers of a lane (readable for tests and debugging). */
   int32_t a0(unsigned lane) const { return a0_[lane]; }
   int32_t lc(unsigned lane) const { return lc_[lane]; }
   /** Predicates of a lane: bit n = Pn. */
   unsigned pred(unsigned lane) const { return pred_[lane]; }
   /** Instruction index (Program::instr) @lane executes next; ~0u before the
    *  first step and for ended lanes. */
   uint32_t next_instr(unsigned lane) const;
   /** Unit address of the BRC.END that ended @lane, ~0u while it has not ended. */
   uint32_t end_pc(unsigned lane) const { return end_pc_[lane]; }

 private:
   friend struct Exec;

   unsigned width_ = 0, stride_ = 0, num_regs_ = 0;
   vlg_shader_stage stage_ = VLG_SHADER_STAGE_VERTEX;
   uint32_t group_id_ = 0;
   std::vector<uint32_t> regs_;

   uint64_t live_ = 0, helper_ = 0, killed_ = 0, ended_ = 0;
   bool started_ = false, done_ = false;
   bool at_barrier_ = false;
   uint32_t local_base_ = 0;
   /* PCs are instruction indices of the Program. While `uniform_`, every
    * running lane is at upc_ and pc_[] is stale. */
   bool uniform_ = true;
   uint32_t upc_ = 0;
   uint64_t executed_ = 0;

   alignas(64) uint32_t pc_[kMaxLanes];
   alignas(64) int32_t a0_[kMaxLanes];
   alignas(64) int32_t lc_[kMaxLanes];
   alignas(64) uint8_t pred_[kMaxLanes];
   uint32_t end_pc_[kMaxLanes];

   /* Executor scratch: lane blend mask of the active lanes, operand and
    * result buffers ([op][component][lane]). */
   uint64_t amask_for_ = 0;
   alignas(64) uint32_t amask_[kMaxLanes];
   alignas(64) uint32_t srcbuf_[3][4][kMaxLanes];
   alignas(64) uint32_t res_[4][4][kMaxLanes];
};

} // namespace vlgpu::sim
