/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_passes.h — the compiler's passes, one per file, in pipeline order
 * (docs/compiler.md):
 *
 *   vlg_nir.cpp       NIR lowering and optimisation for a vec4 VL-IW target
 *                     (memory access: vlg_nir_memory.cpp; run-time indices of
 *                     sampler and uniform block arrays: vlg_nir_indexing.cpp;
 *                     64-bit integers: vlg_nir_64bit.cpp)
 *   vlg_isel.cpp      NIR (out of SSA) -> backend IR on virtual registers
 *                     (per instruction family: vlg_isel_{alu,io,memory,tex}.cpp)
 *   vlg_pack.cpp      global-buffer layout: uniforms + constants, packed
 *   vlg_legalize.cpp  operand rules the packer's layout decides (C >= 128, MAD/SEL sources)
 *   vlg_coalesce.cpp  copy coalescing before scheduling (and the interference graph RA uses)
 *   vlg_sched.cpp     dual-phase list scheduling inside basic blocks
 *   vlg_liveness.cpp  component-exact liveness (used by RA and the tests)
 *   vlg_ra.cpp        graph colouring (coalescing again), low-bank priority
 *   vlg_emit.cpp      operand canonicalisation, branch targets, encoding
 *   vlg_stats.cpp     static statistics (cycle estimate from vlg_op_table)
 *   vlg_validate.cpp  IR validation between the passes (debug builds, tests)
 */
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "vlg_ir.h"

struct nir_shader;
struct nir_instr;

namespace vlgpu {

/** A shader the compiler cannot compile: the message names the reason. */
struct CompileError : public std::runtime_error {
   explicit CompileError(const std::string &m) : std::runtime_error(m) {}
};

/**
 * An internal compiler error: an invariant of the compiler itself broke (a
 * compiler bug, not something the shader did). what() is "FILE:LINE: what
 * failed" (FILE without directories). Thrown only through VLG_ICE /
 * VLG_CHECK (internal_error()); vlg_compile_nir turns it into a failed
 * compile whose message adds the pass and the shader (docs/compiler.md
 * "Internal errors"). Not a CompileError: tests and callers can tell a bug
 * from an unsupported shader.
 */
struct InternalError : public std::logic_error {
   InternalError(const char *file, int line, const std::string &what);
   const char *file; /**< source file of the check, without directories */
   int line;
};

/**
 * Report an internal compiler error detected at @file:@line: throws
 * InternalError, or, inside a vlg_compile_nir whose options set
 * abort_on_internal_error (VLGPU_DEBUG=ice_abort), prints the full message
 * (shader, pass, file:line) to stderr and calls abort() right here, so a
 * debugger stops at the failing check.
 */
[[noreturn]] void internal_error(const char *file, int line, const std::string &what);

/** Internal compiler error with message @msg (a std::string or C string). */
#define VLG_ICE(msg) ::vlgpu::internal_error(__FILE__, __LINE__, (msg))
/** The compiler's own assert: if @cond is false, an internal compiler error
 *  "check 'COND' failed: MSG". Stays on in every build (unlike assert()). */
#define VLG_CHECK(cond, msg)                                                                       \
   do {                                                                                            \
      if (!(cond))                                                                                 \
         VLG_ICE(std::string("check '" #cond "' failed: ") + (msg));                               \
   } while (0)

/**
 * Tests only: when set, vlg_compile_nir calls it after each pass with the
 * pass's name ("nir", "isel", "pack", "legalize", "coalesce", "sched", "ra",
 * "emit") and the backend IR (empty after "nir"), while that pass is the
 * current one; a test throws from it to inject a failure into the pass.
 * NULL in the driver and the tools. Not thread-safe: set it while no
 * compile runs.
 */
extern void (*pass_hook_for_tests)(const char *pass, Shader &S);

/** What the io variables said before nir_lower_io replaced them. */
struct IoInfo {
   std::map<int, unsigned> fs_interp; /**< FS input varying slot -> enum vlg_interp */
   unsigned driver_base = 0;  /**< vec4 uniform slot of the driver uniforms (VLG_DU_*) */
   unsigned shared_size = 0;  /**< compute: bytes of shared memory per workgroup */
   uint32_t ssbos_used = 0;   /**< bit i: SSBO slot i is accessed */
   uint32_t images_used = 0;  /**< bit i: image unit i is accessed */
};

/** Options the pipeline runs with (vlg_compiler.cpp fills them from
 *  vlg_compile_options). */
struct PipelineOptions {
   bool nir_opt = true, lowbank = true, pack = true, dual = true, sched = true, coalesce = true;
   bool vectorize = true, reassoc = true;
   bool print_ir = false;
};

/* vlg_nir.cpp: lower and optimise @nir in place for the backend (io to
 * load_input/store_output with vec4 slots, booleans as 32-bit masks,
 * textures, out of SSA with vectors lowered to MOVs). Optimisations per
 * @o: nir_opt (the loop), vectorize (nir_opt_vectorize), reassoc
 * (split_long_sums). */
void nir_prepare(nir_shader *nir, const PipelineOptions &o, IoInfo &io);

/* vlg_nir.cpp: the texel offsets of @tex (a nir_tex_instr) as the texture unit takes them in a
 * TOFF Sub unit (docs/isa.md), into @out (u, v, w; 0 for the components the
 * sampler dimension lacks, and all 0 without an offset source): true when
 * @tex has no offset, or a constant one within VLG_MIN_TEXEL_OFFSET..
 * VLG_MAX_TEXEL_OFFSET on an op that takes offsets (tex, txb, txl, txd,
 * tg4). nir_prepare lowers every other offset to coordinates. */
bool tex_unit_offsets(const struct nir_instr *tex, int8_t out[3]);

/* vlg_nir_memory.cpp: SSBO, image and grid-size intrinsics of a compute
 * shader to load_global/store_global/global_atomic_* on 32-bit VRAM
 * addresses and load_uniform of the driver uniforms at vec4 slot
 * @driver_base (VLG_DU_*); returns progress, the SSBO and image slots used. */
bool lower_memory(nir_shader *nir, unsigned driver_base, uint32_t *ssbos_used,
                  uint32_t *images_used);

/* vlg_nir_indexing.cpp: every tex with a texture_offset/sampler_offset source
 * and every load_ubo with a non-constant block index becomes a binary
 * search of ifs over the possible indices with one constant-index copy per
 * index (TEX units and LDB slots are instruction fields). Throws
 * CompileError for a run-time index whose texture and sampler differ.
 * Returns progress. */
bool lower_dynamic_indexing(nir_shader *nir);

/* vlg_nir_64bit.cpp: 64-bit loads and stores (uniforms, uniform blocks,
 * global and shared memory) as 32-bit ones plus pack/unpack_64_2x32_split
 * (ARB_gpu_shader_int64 after nir_lower_int64). Returns progress. */
bool lower_64bit_access(nir_shader *nir);
/* vlg_nir_64bit.cpp: the 64-bit ALU values left (bcsel, vecN, phis):
 * scalarised, read through vecNs, nir_lower_64bit_phis, nir_lower_int64.
 * Returns progress. */
bool lower_64bit_alu(nir_shader *nir);
/* vlg_nir_64bit.cpp: throws CompileError naming the first 64-bit SSA value
 * left in @nir (the backend's registers hold 32-bit components). */
void check_no_64bit(nir_shader *nir);

/* vlg_reassoc.cpp: rewrite every chain of at least @min_terms inexact fadds
 * (a0 + a1 + ... in one block) as min(4, n/4) interleaved partial sums
 * added at the end. Returns whether anything changed. */
bool split_long_sums(nir_shader *nir, unsigned min_terms);

/* vlg_isel.cpp: NIR -> backend IR (fills S's blocks, vregs, io maps, flags).
 * Throws CompileError naming what is not supported. */
void select_instructions(nir_shader *nir, const IoInfo &io, Shader &S);

/* vlg_pack.cpp: assign global-buffer entries to every File::Imm / File::Unif
 * operand (packed and deduplicated when @pack, else st/mesa's layout plus one
 * entry per constant operand); fills S.consts and S.copies. Throws
 * CompileError when more than 512 entries are needed. */
void pack_global_buffer(Shader &S, bool pack);

/* vlg_legalize.cpp: after packing: C >= 128 via LDC, MAD/SEL operand
 * restrictions, modifiers the op type does not allow. */
void legalize(Shader &S);

/* vlg_sched.cpp: form bundles in every block (S.scheduled). @reorder: list
 * scheduling by critical path; @dual: pair ops into phase 0 | phase 1. */
void schedule(Shader &S, bool reorder, bool dual);

/* vlg_liveness.cpp */
struct Liveness {
   unsigned nbits = 0;                                   /**< 4 per vec4 register of every vreg */
   std::vector<unsigned> first_bit;                      /**< per vreg: bit of (register 0, x) */
   std::vector<std::vector<uint64_t>> live_in, live_out; /**< per block */
   unsigned words() const { return (nbits + 63) / 64; }
   unsigned bit(uint32_t vreg, unsigned offset, unsigned comp) const
   {
      return first_bit[vreg] + offset * 4 + comp;
   }
};
/** Liveness over bundles if S.scheduled, else over instructions. */
Liveness compute_liveness(const Shader &S);

/* vlg_coalesce.cpp: merge the ends of register-to-register MOVs that do not
 * interfere (before scheduling, on isel order) and delete the MOVs. */
void coalesce_copies(Shader &S);

/* vlg_ra.cpp: coalesce MOVs (unless !@coalesce), colour, permute colours by
 * reference count into R0..R31 (when @lowbank). Rewrites File::Reg operands
 * to physical registers, sets S.num_regs and S.allocated. Throws
 * CompileError (naming the shader and the register pressure) if the shader
 * does not fit R0..R127. */
void register_allocate(Shader &S, bool lowbank, bool coalesce);

/* vlg_emit.cpp */
struct Binary {
   std::vector<uint32_t> units;
   std::vector<unsigned> block_address; /**< unit address of each block */
   unsigned instructions = 0, ops = 0, dual = 0;
};
/** Encode S (scheduled and allocated). Throws CompileError when the program
 *  exceeds the code address range, InternalError with the instruction's text
 *  if an instruction cannot be encoded (a compiler bug). */
Binary emit_program(const Shader &S);
/** Canonicalise one op for the shortest encoding in phase @phase (commutative
 *  swaps, moving a negation, filling swizzle positions the op does not read). */
vlg_op lower_op(const Shader &S, const Instr &I, unsigned phase);

/* vlg_validate.cpp: check the IR invariants the passes rely on (vlg_ir.h;
 * the rules in vlg_validate.cpp and docs/compiler.md "IR validation"), the
 * ones that hold at S's state (S.packed, S.legalized, S.scheduled,
 * S.allocated). Throws InternalError (a broken invariant is a compiler bug)
 * "vlg_validate.cpp:LINE: IR validation failed after @pass: rule (block B):
 * instruction" on the first violation. */
void validate(const Shader &S, const char *pass);

/* vlg_stats.cpp: static cycle estimate of a scheduled shader: each block
 * once, one instruction per cycle, stalls until register results are ready
 * (latencies of vlg_op_table). */
unsigned estimate_cycles(const Shader &S);
/* vlg_stats.cpp: cycles per thread group when @groups resident thread
 * groups of the shader issue on one SPC (oldest first, one instruction per
 * cycle, scoreboard as the cycle-mode SPC; every block once): total cycles
 * until all are done / @groups, rounded up. */
unsigned estimate_throughput(const Shader &S, unsigned groups);

} // namespace vlgpu
