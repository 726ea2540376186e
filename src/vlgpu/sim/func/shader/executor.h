/*
 * vlgpu simulator: the SPC's shader executor (functional; the cycle-mode SPC
 * calls step() and adds the timing). docs/simulator-spc.md describes the
 * model; docs/isa.md is the instruction set it executes.
 *
 *   ThreadGroup tg(16, state.num_regs, VLG_SHADER_STAGE_FRAGMENT, group_no);
 *   tg.set_live_mask(...); tg.set_helper_mask(...);
 *   tg.set_f(lane, reg, comp, value);           // inputs[] of shader_state
 *   ShaderResources res;  res.stage = ...; res.consts = ...; res.vram = &vram; ...
 *   try {
 *      RunResult r = run(tg, *program, res);     // functional mode
 *   } catch (const GpuFault &f) { ... stop the draw, report f.what() ... }
 *   tg.get_f(lane, reg, comp);                  // outputs[] of shader_state
 *
 * Every GPU error (illegal instruction, PC outside the program, runaway
 * shader, register beyond num_regs, unbound texture unit, texture or LDB
 * VRAM fault) is a GpuFault whose report names the PC, the disassembly of
 * the instruction and the thread group. After a fault the thread group is
 * in an unspecified state (reset() it); the Program, the ShaderResources and
 * the executor itself are unaffected and usable again.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "program.h"
#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"
#include "sim/func/tex/texture.h"
#include "thread_group.h"
#include "vlg_hw.h"

namespace vlgpu::sim {

/** The texture unit's entry point (texture.h; returns the bilinear filter
 *  units taken); replaceable for tests. */
using TextureSampleFn = uint32_t (*)(const Vram &vram, const VLG_TEXTURE &tex,
                                     const VLG_SAMPLER &samp, const TexInstr &ins,
                                     bool fragment_quads, unsigned num_lanes, uint64_t lane_mask,
                                     const TexLaneIn *in, uint32_t (*out)[4],
                                     std::vector<uint64_t> *trace);

/** One texture unit T0..T15 of a stage: texture + sampler pair i (docs/hw.md). */
struct TextureUnit {
   bool valid = false; /**< bound; sampling an unbound unit is a GpuFault */
   VLG_TEXTURE tex;    /**< unpacked texture descriptor */
   VLG_SAMPLER samp;   /**< unpacked sampler descriptor */
};

/** A buffer slot B0..B15 for LDB (uniform buffers). */
struct BufferSlot {
   uint64_t address = 0; /**< VRAM byte address of the buffer */
   uint32_t size = 0;    /**< bytes; words at or past it read as 0 (0 = unbound: all reads 0) */
};

/**
 * Where a geometry shader's MEM.EMIT / MEM.CUT go (docs/hw.md "Geometry
 * shaders"): the GE's per-lane output strips. Called during step()/run(),
 * in program order, with the lanes executing the instruction.
 */
class GsEmitSink {
 public:
   virtual ~GsEmitSink() = default;
   /** MEM.EMIT: each lane of @lanes appends a vertex made of the current
    *  values of its output-map registers (read from @tg) to its current
    *  strip (at most shader_state.gs_max_vertices per lane). */
   virtual void emit(const ThreadGroup &tg, uint64_t lanes) = 0;
   /** MEM.CUT: each lane of @lanes ends its current strip. */
   virtual void cut(uint64_t lanes) = 0;
};

/** What a thread group's shader reads besides its registers; one per draw and stage. */
struct ShaderResources {
   /** Stage; must equal the thread group's (checked, std::invalid_argument). */
   vlg_shader_stage stage = VLG_SHADER_STAGE_VERTEX;
   /** Global buffer C0...: num_consts vec4 entries of 32-bit words (the
    *  shader_state consts image). ALU reads C0..C127, LDC C0..C511; entries
    *  at or beyond num_consts (or a negative LDC index) read as 0. */
   const uint32_t (*consts)[4] = nullptr;
   uint32_t num_consts = 0;
   /** VRAM address the consts image was read from; only used to report LDC
    *  addresses in StepResult (0: LDC reports none). */
   uint64_t consts_address = 0;
   /** Texture units T0..T(num_textures-1); units at or beyond it are unbound. */
   const TextureUnit *textures = nullptr;
   unsigned num_textures = 0;
   /** Buffer slots for LDB. */
   BufferSlot buffers[VLG_NUM_BUFFERS];
   /** VRAM for LDB and texturing (required when the shader uses them). */
   const Vram *vram = nullptr;
   /** MEM on global memory (every stage: compute, and images, SSBOs and
    *  atomic counters of vertex and fragment shaders): the same VRAM as
    *  @vram but writable (null: a global MEM op faults). */
   Vram *global = nullptr;
   /** Compute (MEM.S): the workgroup's shared memory, @shared_size bytes
    *  (a multiple of 4; offsets at or past it fault). */
   uint32_t *shared = nullptr;
   uint32_t shared_size = 0;
   /** Compute: workgroup size (LID = local index decomposed with it) and
    *  this workgroup's id (WGID). */
   uint32_t block[3] = {1, 1, 1};
   uint32_t workgroup[3] = {0, 0, 0};
   /** Watchdog: the most instructions one thread group may issue; one more
    *  is a GpuFault "shader did not end" (watchdog.instructions_per_thread_group,
    *  the same in both modes). */
   uint64_t max_instructions = 1u << 22;
   /** Per-submit budget (watchdog.instructions_per_submit): thread-group
    *  instructions the rest of the command queue may issue, counted down by
    *  every group of every draw and dispatch; at 0 the next instruction is a
    *  GpuFault "submit budget exceeded". Null: no budget. Not owned. */
   uint64_t *submit_instructions_left = nullptr;
   /** Texture unit entry point: the real one (texture.h) unless a test replaces it. */
   TextureSampleFn sample = &texture_sample;
   /** Geometry shaders: the output strips MEM.EMIT/CUT write (null: they fault). */
   GsEmitSink *gs = nullptr;
};

/** Kind of memory access an instruction issued. */
enum class MemKind : uint8_t { None, Ldc, Ldb, Tex, Mem };

/**
 * What one step() did, for the cycle-mode SPC: the static facts of the
 * instruction (instr: classes per phase, latency, dual, size, R registers
 * read and written with per-write latency for the scoreboard, coordinate
 * registers), which lanes executed, whether the group has ended, and the
 * memory access (kind, VRAM byte addresses: LDC and LDB one address per lane
 * and vec4 read, the 16-byte entry start; texture ops every texel read, from
 * texture_sample's trace).
 */
struct StepResult {
   const Instr *instr = nullptr; /**< null if nothing issued (group already done) */
   uint32_t pc = 0;              /**< unit address of the instruction */
   uint64_t active = 0;          /**< lanes that executed it (helpers included) */
   bool ended = false;           /**< the group is done after this step */
   MemKind mem = MemKind::None;
   std::vector<uint64_t> mem_addresses; /**< VRAM byte addresses read (see above); MEM: the
                                             address (global) or offset (shared) of every
                                             dword accessed, lane order */
   uint8_t memkind = 0;  /**< MEM: enum vlg_memkind */
   bool mem_shared = false; /**< MEM: shared memory (mem_addresses are offsets) */
   bool barrier = false; /**< a MEM.BAR issued: the group now waits (ThreadGroup::at_barrier) */
   /** Texture ops: the bilinear filter units the texture unit took (texture_sample's
    *  return value, summed over the instruction's texture ops); 0 otherwise. */
   uint32_t tex_filter_units = 0;
};

/** Totals of run(), for statistics. */
struct RunResult {
   uint64_t instructions = 0;      /**< instructions issued (group-level, one per cycle slot) */
   uint64_t lane_instructions = 0; /**< sum over issued instructions of the lanes executing */
   uint64_t dual_issued = 0;       /**< issued instructions with both phases */
   uint64_t mem_ops = 0;           /**< MEM ops issued (compute loads, stores, atomics, BAR, FENCE) */
   /** Ops issued per functional class, index = bit number of enum vlg_class
    *  (an op counts once in each class it occupies: MAD in mul and add). */
   uint64_t class_ops[kNumShaderClasses] = {};
};

/**
 * Executes ONE instruction: the one at the lowest PC among the group's
 * running lanes, for the lanes at that PC (docs/isa.md section 1), both
 * phases with the forwarding rules of section 2 (all register operands read
 * before any write; PRED/ADDR/++LC of phase 0 visible to phase 1). Fills
 * @out (its mem_addresses vector is reused). Throws GpuFault (module "SPC").
 */
void step(ThreadGroup &tg, const Program &prog, const ShaderResources &res, StepResult &out);

/** step() returning a fresh StepResult. */
StepResult step(ThreadGroup &tg, const Program &prog, const ShaderResources &res);

/**
 * Runs the group until it is done or, in a compute shader, has issued a
 * MEM.BAR (ThreadGroup::at_barrier; release_barrier() and run() again to go
 * on), as fast as possible.
 * Throws GpuFault (module "SPC"); the counts so far are lost then.
 */
RunResult run(ThreadGroup &tg, const Program &prog, const ShaderResources &res);

} // namespace vlgpu::sim
