/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_nir_options.c — the nir_shader_compiler_options of the VL-IW target
 * (in C: C++17 has no out-of-order designated initializers). What is lowered
 * follows from the op set of docs/isa.md §5; everything the ISA has is kept:
 *
 *   kept (native): fsqrt (SQRT), frsq, frcp, fexp2/flog2, fsin/fcos,
 *     ffloor/ffract (FLR/FRC), fmin/fmax, fsat (.SAT), fdot3/fdot4 (DP3/DP4,
 *     replicated), ffma (MAD, formed from fmul+fadd only: MAD rounds its
 *     product like the pair it replaces), iabs (IMAX x, -x), integer
 *     add/mul/min/max/compares, and/or/xor/shifts, conversions, fddx/fddy,
 *     bcsel (SEL), pack/unpack_half_2x16 (CONV.F2H/H2F, in vlg_isel.cpp),
 *     ufind_msb (FMSB; NIR has no lowering of it), frexp_sig/frexp_exp
 *     (MAN/EXP).
 *   lowered by NIR: fdiv, fmod, fpow, flrp, fsign, isign, fceil, ftrunc,
 *     fdph, ldexp, scmp (slt...), vector compares, bitfield insert/extract,
 *     rotates, byte/word extract/insert, bitfield_reverse and bit_count
 *     (shifts and masks: 15 and 12 ops, rare in shaders), find_lsb
 *     (FMSB(x & -x)), ifind_msb (FMSB of x or ~x), the unorm/snorm packs, mul_high,
 *     carries, saturating adds, int64 (64-bit memory access and what the
 *     optimisation loop makes 64 bits wide: vlg_nir_64bit.cpp), fp64 (never
 *     reaches the backend: no PIPE_CAP_DOUBLES).
 *   in vlg_isel.cpp: umin/umax (no NIR lowering exists in 22.3), fround_even,
 *     fdot2 (MUL + ADD), ineg (IADD 0, -x).
 *
 * Indirect access to inputs, outputs and temporaries is unrolled (no
 * indirect register file access; the global buffer has ADDR + LDC).
 */
#include "compiler/nir/nir.h"

#include "vlg_compiler.h"

static const nir_shader_compiler_options vlg_nir_options = {
   .lower_fdiv = true,
   .fuse_ffma32 = true,
   .lower_flrp16 = true,
   .lower_flrp32 = true,
   .lower_flrp64 = true,
   .lower_fpow = true,
   .lower_fmod = true,
   .lower_bitfield_extract_to_shifts = true,
   .lower_bitfield_insert_to_shifts = true,
   .lower_bitfield_reverse = true,
   .lower_bit_count = true,
   .lower_find_lsb = true,
   .lower_ifind_msb = true,
   .lower_uadd_carry = true,
   .lower_usub_borrow = true,
   .lower_mul_high = true,
   .lower_mul_2x32_64 = true, /* umulExtended/imulExtended: imul + mul_high */
   .lower_scmp = true,
   .lower_vector_cmp = true,
   .lower_isign = true,
   .lower_fsign = true,
   .lower_umax = true,
   .lower_umin = true,
   .lower_fdph = true,
   .fdot_replicates = true,
   .lower_fceil = true,
   .lower_ftrunc = true,
   .lower_ldexp = true,
   .lower_pack_unorm_2x16 = true,
   .lower_pack_snorm_2x16 = true,
   .lower_pack_unorm_4x8 = true,
   .lower_pack_snorm_4x8 = true,
   .lower_pack_64_2x32 = true,
   .lower_pack_64_4x16 = true,
   .lower_pack_32_2x16 = true,
   .lower_unpack_unorm_2x16 = true,
   .lower_unpack_snorm_2x16 = true,
   .lower_unpack_unorm_4x8 = true,
   .lower_unpack_snorm_4x8 = true,
   .lower_extract_byte = true,
   .lower_extract_word = true,
   .lower_insert_byte = true,
   .lower_insert_word = true,
   .vertex_id_zero_based = false,
   .lower_hadd = true,
   .lower_uadd_sat = true,
   .lower_usub_sat = true,
   .lower_iadd_sat = true,
   .lower_rotate = true,
   .has_txs = true, /* TXQ: nir_lower_tex lowers run-time gather offsets with sizes */
   .max_unroll_iterations = 32,
   .force_indirect_unrolling_sampler = true,
   .force_indirect_unrolling = nir_var_shader_in | nir_var_shader_out | nir_var_function_temp,
   /* Every option Mesa 22.3.6 defines (nir.h: up to nir_lower_iadd_sat64 and
    * nir_lower_fp64_full_software): not ~0, which lies outside the C++ enums'
    * range of values, so that st/mesa's and our C++ loads of these fields
    * are defined (UBSan -fsanitize=enum, ./vlgpu test --sanitize). */
   .lower_int64_options = (nir_lower_int64_options)((nir_lower_iadd_sat64 << 1) - 1),
   .lower_doubles_options =
      (nir_lower_doubles_options)((nir_lower_fp64_full_software << 1) - 1),
};

const struct nir_shader_compiler_options *
vlg_compiler_nir_options(gl_shader_stage stage)
{
   (void)stage; /* the same table serves both stages */
   return &vlg_nir_options;
}
