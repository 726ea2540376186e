/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_compiler.h — C API of the vlgpu shader compiler: NIR (from st/mesa, or
 * from tgsi_to_nir for Mesa's utility shaders) to VL-IW machine code
 * (docs/isa.md), with the shader_state facts the driver writes for it
 * (docs/hw.md, struct shader_state). docs/compiler.md describes the pipeline.
 *
 * Driver use (vlg_program.c):
 *
 *    screen->get_compiler_options  -> vlg_compiler_nir_options(stage)
 *    create_vs_state/create_fs_state:
 *       nir = cso->type == PIPE_SHADER_IR_NIR ? cso->ir.nir
 *                                              : tgsi_to_nir(cso->tokens, screen, false);
 *       struct vlg_compile_options o = {0};          // all optimisations on
 *       char *err = NULL;
 *       struct vlg_compiled_shader *cs = vlg_compile_nir(nir, &o, &err);
 *       if (!cs) { fprintf(stderr, "%s\n", err); free(err); ... }
 *    draw: write cs->code, then the global-buffer image: copy cs->consts, then
 *       for each cs->uniform_copies[i] copy `count` dwords from constant buffer
 *       0 (dword `src`) to the image (dword `dst`); pack cs->state (the
 *       shader_state block) with the code's VRAM address.
 *
 * Thread safety: vlg_compile_nir may run on several threads at once (it keeps
 * no global state; the NIR options table is constant).
 */
#ifndef VLG_COMPILER_H
#define VLG_COMPILER_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler/shader_enums.h"
#include "vlg_hw.h"
#include "vlg_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nir_shader;
struct nir_shader_compiler_options;

/**
 * NIR options for stage @stage (MESA_SHADER_VERTEX, _GEOMETRY, _FRAGMENT or _COMPUTE):
 * what st/mesa and the NIR optimisation loop must lower before the backend
 * sees a shader, derived from the VL-IW op set (docs/isa.md §5): no divide,
 * pow, ceil/trunc/round-even, unsigned min/max, bitfield ops or pack/unpack
 * other than half floats; MAD is not fused (ffma is only formed from
 * mul+add, which rounds the same way); DP3/DP4 replicate their result.
 * Returns a pointer to constant static data (never NULL).
 */
const struct nir_shader_compiler_options *vlg_compiler_nir_options(gl_shader_stage stage);

/**
 * Switches of the optimisations (all zero = everything on, the default).
 * Each one exists for ablation (seeds 000/003 measured them one at a time).
 */
struct vlg_compile_options {
   bool no_nir_opt; /**< skip the NIR optimisation loop (lowering still runs) */
   bool no_lowbank; /**< no low-bank priority: registers in colouring order, not by reference count
                       (seeds 000/003 §3.3) */
   bool no_pack;    /**< no global-buffer packing: uniforms at st/mesa's vec4 slots, one entry per
                       constant operand, no dedup */
   bool no_dual;    /**< no dual-phase pairing: one op per instruction */
   bool
      no_sched; /**< no list scheduling: keep instruction-selection order (pairs only neighbours) */
   bool no_coalesce;  /**< keep register-to-register MOVs (no copy coalescing in RA) */
   bool no_vectorize; /**< no nir_opt_vectorize (scalar ops of one kind merged into vec4 ops) */
   bool no_reassoc;   /**< keep long floating-point sums as written (no parallel partial sums) */
   bool disasm;       /**< fill vlg_compiled_shader::disasm */
   bool print_ir;     /**< append the backend IR after each pass to disasm (debugging) */
   bool validate;     /**< check the IR after every pass (vlg_validate.cpp) even in a build with
                         NDEBUG; debug builds always do. A violation is a compile error naming
                         the pass, the rule and the instruction (docs/compiler.md "IR
                         validation") */
   bool abort_on_internal_error; /**< an internal compiler error (a compiler bug: a VLG_CHECK
                                    that failed, an IR validation failure, any exception but
                                    CompileError and bad_alloc) prints its message to stderr and
                                    calls abort() where it is detected instead of failing the
                                    compile: for a debugger (VLGPU_DEBUG=ice_abort,
                                    docs/compiler.md "Internal errors") */
   const char *name;  /**< name for messages (default: nir->info.name or "shader") */
};

/**
 * The optimisation switches of vlg_compile_options, one table for every
 * front end (docs/compiler.md "Switches"): the driver's VLGPU_DEBUG names
 * ("no-dual", ...), vlgpu-cc's flags ("--no-dual") and its --report runs.
 * @index runs from 0 to vlg_compile_switch_count() - 1; an index out of
 * range gives NULL (name, help) or does nothing (set).
 */
unsigned vlg_compile_switch_count(void);
/** "no-lowbank", "no-pack", "no-dual", ...: the switch that turns one optimisation off. */
const char *vlg_compile_switch_name(unsigned index);
/** What the optimisation is, one line. */
const char *vlg_compile_switch_help(unsigned index);
/** Set switch @index of @o to @off (true: that optimisation off). */
void vlg_compile_options_set_switch(struct vlg_compile_options *o, unsigned index, bool off);
/** Whether switch @index of @o is set (its optimisation off). */
bool vlg_compile_options_switch(const struct vlg_compile_options *o, unsigned index);

/**
 * Driver uniforms (docs/compiler.md "Compute shaders"; vertex and fragment
 * shaders have the same ones, VLG_DU_NUM_WORKGROUPS unused):
 * vec4 slots numbered from vlg_compiled_shader::driver_uniform_base in the
 * constant-buffer-0 slot numbering of the uniform copy map. The driver fills
 * them (uint32 words) instead of constant buffer 0:
 *   VLG_DU_NUM_WORKGROUPS      (grid x, y, z, 0): gl_NumWorkGroups
 *   VLG_DU_SSBO + i            (VRAM byte address, size in bytes, 0, 0) of
 *                              shader buffer i (pipe set_shader_buffers)
 *   VLG_DU_IMAGE + 2i          (VRAM byte address of texel (0,0) of layer 0 of
 *                              the bound level, row pitch, layer stride in
 *                              bytes, 0) of image unit i (set_shader_images)
 *   VLG_DU_IMAGE + 2i + 1      (width, height, depth or layers, 0) of that
 *                              level (a cube view: 6 layers); all 0 when unbound
 *                              (every access is then out of range: loads 0)
 * The image format is the shader's format qualifier (GL ES 3.1 requires one).
 */
#define VLG_MAX_SHADER_BUFFERS 16
#define VLG_MAX_SHADER_IMAGES 8
enum {
   VLG_DU_NUM_WORKGROUPS = 0,
   VLG_DU_SSBO = 1,
   VLG_DU_IMAGE = VLG_DU_SSBO + VLG_MAX_SHADER_BUFFERS,
   VLG_DU_SLOTS = VLG_DU_IMAGE + 2 * VLG_MAX_SHADER_IMAGES,
};

/** One range of the uniform copy map: global-buffer image dwords
 *  [dst, dst+count) = constant-buffer-0 dwords [src, src+count). A dword
 *  index is vec4 entry * 4 + component in both; constant buffer 0 is
 *  st/mesa's uniform storage (vec4-aligned slots, PIPE_CAP_PACKED_UNIFORMS
 *  off). Dwords the bound buffer does not hold are to be written as 0. */
struct vlg_uniform_copy {
   uint32_t dst;
   uint32_t src;
   uint32_t count;
};

/** Resident thread groups of the throughput estimate: the simulator's default
 *  thread_groups_per_spc (docs/simulator.md). */
#define VLG_STATS_RESIDENT_GROUPS 8

/** Static statistics of one compiled shader (shader-db style). */
struct vlg_shader_stats {
   unsigned instructions; /**< VL-IW instructions */
   unsigned ops;          /**< operations (phases) */
   unsigned dual;         /**< instructions with both phases */
   unsigned units;        /**< code size in 32-bit units */
   unsigned bytes;        /**< code size in bytes (units * 4) */
   unsigned registers;    /**< num_regs */
   unsigned gb_entries;   /**< global-buffer entries (num_consts) */
   unsigned cycles; /**< static cycle estimate: every block once, in-order issue with the latencies
                       of vlg_op_table */
   unsigned max_pressure; /**< most vec4 registers live at once */
   float dual_rate;       /**< dual / instructions */
   unsigned tput_cycles;  /**< throughput estimate: cycles per thread group when
                             VLG_STATS_RESIDENT_GROUPS groups of the shader share one SPC (oldest
                             first, the cycle-mode SPC's scoreboard; every block once) */
};

/** The result of vlg_compile_nir; free with vlg_compiled_shader_free. */
struct vlg_compiled_shader {
   gl_shader_stage stage;

   /** The shader_state block of this shader (docs/hw.md; the fields' meaning is vlgpu_hw.xml's)
    *  as far as the compiler knows it: stage, num_regs, num_inputs/inputs and num_outputs/outputs
    *  (the input and output maps), num_samplers, code_size (units of code), entry (0),
    *  uses_discard, writes_depth, uses_derivatives, writes_memory, early_fragment_tests and, for
    *  a geometry shader, gs_vertices_in, gs_output_prim, gs_input_stride, gs_max_vertices. The
    *  driver fills in the VRAM addresses (code, consts, buffers) and num_consts/num_buffers. */
   struct VLG_SHADER_STATE state;
   uint32_t *code; /**< VL-IW binary, state.code_size units (one unit = 4 bytes) */

   int input_locations[VLG_HW_MAX_SHADER_IO];  /**< NIR slot of each input of state.inputs:
                                                  gl_vert_attrib (ATTRIBUTE), gl_varying_slot
                                                  (VARYING, FRAG_COORD, FACE, POINT_COORD; GS:
                                                  POSITION, POINT_SIZE, VARYING) or gl_system_value
                                                  (VERTEX_ID, INSTANCE_ID, PRIMITIVE_ID) */
   int output_locations[VLG_HW_MAX_SHADER_IO]; /**< of each output of state.outputs:
                                                  gl_varying_slot (VS, GS) or gl_frag_result (FS) */

   uint32_t (*consts)[4]; /**< global-buffer image, num_consts entries: compiler constants; uniform
                             dwords 0 */
   unsigned num_consts;   /**< vec4 entries (<= 512) */
   struct vlg_uniform_copy *uniform_copies;
   unsigned num_uniform_copies;
   unsigned cb0_dwords; /**< constant-buffer-0 dwords the shader reads: max(src + count) */
   unsigned driver_uniform_base; /**< vec4 slot of VLG_DU_NUM_WORKGROUPS: copy map source dwords
                                    from driver_uniform_base * 4 on read the driver uniforms (dword
                                    src - driver_uniform_base * 4), not constant buffer 0 */

   /* Compute shaders */
   unsigned workgroup_size[3]; /**< local size x, y, z (compile-time) */
   unsigned shared_size;       /**< bytes of shared memory per workgroup (multiple of 4) */
   /* Every stage: the driver-uniform slots the shader reads (VLG_DU_*) */
   uint32_t ssbos_used;        /**< bit i: shader buffer i is accessed */
   uint32_t images_used;       /**< bit i: image unit i is accessed */

   uint32_t samplers_used; /**< bit i: unit i (of state.num_samplers) is sampled */
   uint32_t buffers_used;  /**< bit n: LDB reads buffer slot Bn, which is to hold Gallium constant
                                buffer n (uniform block n - 1; n >= 1) */
   bool color_broadcast;   /**< FS wrote FRAG_RESULT_COLOR: output COLOR 0 is meant for every colour
                              buffer */

   struct vlg_shader_stats stats;
   char *disasm; /**< disassembly (+ statistics line), if requested, else NULL */
};

/**
 * Compile @nir (a vertex, geometry, fragment or compute shader; not modified: the compiler works
 * on a clone). On failure returns NULL and, if @error is not NULL, a
 * malloc'ed message naming the shader and the reason (unsupported NIR
 * operation, register pressure above 128 with the pressure, global buffer
 * above 512 entries, ...); free it with free(). @opts may be NULL (defaults).
 * No C++ exception leaves this function: an internal compiler error (a
 * compiler bug) is a failed compile too, its message "vlgpu: STAGE 'name':
 * internal compiler error in pass 'PASS': FILE:LINE: what failed" (unless
 * @opts->abort_on_internal_error); out of host memory is "... out of memory
 * in pass 'PASS'". Mesa's own asserts inside NIR passes (nir_validate, ...)
 * are not caught: they abort in builds with assertions, as in every driver.
 */
struct vlg_compiled_shader *vlg_compile_nir(struct nir_shader *nir,
                                            const struct vlg_compile_options *opts, char **error);

void vlg_compiled_shader_free(struct vlg_compiled_shader *cs);

/** Whether image load/store/atomics on images of this format (an enum
 *  pipe_format, the shader's layout qualifier) compile: the GL ES 3.1 image
 *  formats and those of GL_NV_image_formats (vlg_nir_memory.cpp); the
 *  driver's is_format_supported(PIPE_BIND_SHADER_IMAGE). */
bool vlg_compiler_image_format_supported(unsigned pipe_format);

/** The statistics line vlgpu-cc prints ("NAME: 12 instrs, 15 units, ...");
 *  malloc'ed, free with free(). */
char *vlg_shader_stats_line(const char *name, const struct vlg_shader_stats *st);

/**
 * VARYING index (docs/hw.md input/output semantic VARYING, 0..31) of a NIR
 * varying slot, shared by both stages so a VS output and an FS input match:
 * VAR0..VAR15 -> 0..15, COL0 16, COL1 17, BFC0 18, BFC1 19, FOGC 20,
 * TEX0..TEX7 21..28, CLIP_VERTEX 29, VAR16..VAR17 30..31. Returns -1 for
 * slots without an index (POS, PSIZ, ...) or beyond the table.
 */
int vlg_varying_index(int gl_varying_slot);

#ifdef __cplusplus
}
#endif

#endif /* VLG_COMPILER_H */
