/*
 * vlgpu simulator: the COPY command's copy_info (docs/hw.md "Copies"),
 * shared by both GPU backends: loading and checking it, and performing it
 * on VRAM. The functional GPU calls cp_load_copy_info + cp_run_copy when the
 * CP reaches the COPY; the cycle-mode CP calls the same two functions (so
 * both modes fault on the same copy_info with the same report and leave the
 * same VRAM) and then has its DMA engine (sim/units/cp/dma.h) stream the
 * box's lines through the L2 for the timing.
 */
#pragma once

#include <cstdint>

#include "vlg_hw.h"

#include "sim/core/gpu.h"
#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"

namespace vlgpu::sim {

/** Bytes of the box: width_bytes x height x depth (what a COPY moves or a
 *  FILL writes). */
inline uint64_t
copy_box_bytes(const VLG_COPY_INFO &ci)
{
   return uint64_t(ci.width_bytes) * ci.height * ci.depth;
}

/**
 * Call @f(source row address, destination row address) for every row of
 * the box (width_bytes bytes each), slice by slice (z), row by row (y):
 * row (y, z) starts at src + z x src_slice_stride + y x src_row_stride (and
 * likewise for dst). Nothing for an empty box. The source address is
 * meaningless for a FILL.
 */
template <typename F>
inline void
copy_for_each_row(const VLG_COPY_INFO &ci, F &&f)
{
   if (!ci.width_bytes)
      return;
   for (uint64_t z = 0; z < ci.depth; z++)
      for (uint64_t y = 0; y < ci.height; y++)
         f(ci.src + z * ci.src_slice_stride + y * ci.src_row_stride,
           ci.dst + z * ci.dst_slice_stride + y * ci.dst_row_stride);
}

/**
 * Load the copy_info block at VRAM byte address @address (a COPY's
 * cmd_copy.copy_info) and check it against @vram (docs/hw.md "Copies").
 *
 * Errors: GpuFault of module "CP", summary "malformed COPY: <reason>", the
 * detail naming the copy_info address and the fields: copy_info not dword
 * aligned or outside VRAM; a reserved bit or an unknown mode (the generated
 * problem description); FILL with fill_bytes not 1, 2, 4, 8, 12 or 16
 * (a width_bytes that is not a multiple of it is valid: the last
 * repetition of a row is cut short); the source (COPY) or
 * destination box reaching past the end of VRAM (its last byte, computed
 * from the strides in 128-bit arithmetic, so no field values can wrap). An
 * empty box (width_bytes, height or depth 0) is valid and touches nothing.
 */
VLG_COPY_INFO cp_load_copy_info(const Vram &vram, uint64_t address);

/**
 * Perform the checked copy_info @ci on @vram: COPY copies every row of the
 * source box to the same row of the destination box, with memmove
 * semantics (when the two boxes' byte spans overlap the result is as if
 * the whole source box was read before any destination byte was written);
 * FILL writes the pattern (the first fill_bytes bytes of fill_value, little
 * endian) repeatedly from the start of every row, the last repetition cut
 * short at the row end. Returns the bytes written (copy_box_bytes).
 * GpuFault "CP" only for a copy_info that cp_load_copy_info would have
 * refused.
 */
uint64_t cp_run_copy(Vram &vram, const VLG_COPY_INFO &ci);

/**
 * A COPY command as both GPUs run it once it is its turn: cp_load_copy_info
 * of rep.copy_info_address, then cp_run_copy. Fills @rep's mode and bytes;
 * a GpuFault (or a simulator bug, module "simulator") is recorded in @rep
 * and appended to @res.faults with copy_index = rep.index_in_queue.
 * Returns true and the copy_info in @ci when the copy was performed.
 */
bool cp_copy_command(Vram &vram, CopyReport &rep, SubmitResult &res, VLG_COPY_INFO &ci);

} // namespace vlgpu::sim
