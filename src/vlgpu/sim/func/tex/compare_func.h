/*
 * vlgpu simulator: the comparison functions (hw xml compare_func, Gallium's
 * PIPE_FUNC_*), one rule for the texture unit's shadow compare and the OMU's
 * alpha, depth and stencil tests.
 */
#pragma once

#include "vlg_hw.h"

namespace vlgpu::sim {

/** @a a FUNC @a b, GLES 3.0 §3.8 (texture comparison: a is the reference, b
 *  the texel), §4.1.4, §4.1.5 (stencil and depth tests: a the incoming
 *  value, b the stored one) and GL 2.1 §4.1.4 (alpha test). T is uint32_t
 *  (stencil, 32-bit depth), uint16_t (Z16 depth) or float (alpha, shadow
 *  reference, float depth; a NaN passes only NOTEQUAL and ALWAYS). Every
 *  3-bit value is a named function. */
template <typename T>
inline bool
compare_func_passes(vlg_compare_func f, T a, T b)
{
   switch (f) {
   case VLG_COMPARE_FUNC_NEVER:
      return false;
   case VLG_COMPARE_FUNC_LESS:
      return a < b;
   case VLG_COMPARE_FUNC_EQUAL:
      return a == b;
   case VLG_COMPARE_FUNC_LEQUAL:
      return a <= b;
   case VLG_COMPARE_FUNC_GREATER:
      return a > b;
   case VLG_COMPARE_FUNC_NOTEQUAL:
      return a != b;
   case VLG_COMPARE_FUNC_GEQUAL:
      return a >= b;
   default: /* VLG_COMPARE_FUNC_ALWAYS */
      return true;
   }
}

} // namespace vlgpu::sim
