/*
 * vlgpu simulator: the functional parts of the CP (command processor) that
 * both GPU backends share: decoding the command queue and executing SYNC's
 * fence write and DUMP's display copy (docs/hw.md, seed 001 §3.2). The
 * cycle-mode CP calls the same functions, so both modes fault on the same
 * queues with the same reports.
 */
#pragma once

#include <cstdint>

#include "vlg_hw.h"

#include "sim/core/gpu.h"
#include "sim/core/gpu_fault.h"
#include "sim/core/vram.h"

namespace vlgpu::sim {

/** One decoded command of a queue. */
struct Command {
   vlg_cmd_opcode opcode = VLG_CMD_OPCODE_HALT;
   uint32_t offset_dw = 0; /**< dword offset of the command in the queue */
   uint32_t length = 0;    /**< dwords, header included */
   uint32_t words[8] = {}; /**< the packed command (length dwords) */
   VLG_CMD_DRAW draw = {}; /**< valid for DRAW */
   VLG_CMD_SYNC sync = {}; /**< valid for SYNC */
   VLG_CMD_DUMP dump = {}; /**< valid for DUMP */
   VLG_CMD_DISPATCH dispatch = {}; /**< valid for DISPATCH */
   VLG_CMD_COPY copy = {};         /**< valid for COPY */
};

/** The struct of command @op in vlgpu_hw.xml (its name, fields and length
 *  in dwords, VLG_CMD_<OP>_LENGTH); HALT's for a value that is no opcode. */
const vlg_hw_struct_info &cp_command_info(vlg_cmd_opcode op);

/**
 * Unpack @c.words, the cp_command_info(@c.opcode).length dwords of a command,
 * into the member of @c its opcode names (draw, sync, dump, dispatch, copy;
 * HALT has none). Returns the generated unpack's problem bits (VLG_HW_*:
 * reserved bits set, a value no enum names), 0 for a well-formed command.
 */
unsigned cp_unpack_command(Command &c);

/**
 * Decode the command at dword @offset_dw of the queue of @queue_dwords dwords
 * at VRAM byte address @queue_address.
 *
 * Errors: GpuFault, module "CP", summary "malformed command at dword offset
 * N", detail with the header word and the reason: opcode 0 ("not a
 * command: zeroed memory?") or an unnamed opcode, reserved header bits set,
 * a length that is not the opcode's (VLG_CMD_<OP>_LENGTH), a length that runs
 * past the end of the queue (truncated command), reserved bits of the
 * command body. A queue outside VRAM or not dword aligned: summary "command
 * queue outside VRAM" / "misaligned command queue".
 */
Command cp_decode_command(const Vram &vram, uint64_t queue_address, uint32_t queue_dwords,
                          uint32_t offset_dw);

/** Check that the queue lies in VRAM and is dword aligned (GpuFault "CP"). */
void cp_check_queue(const Vram &vram, uint64_t queue_address, uint32_t queue_dwords);

/**
 * SYNC's fence write: fence_value (32-bit little-endian) to fence_address.
 * GpuFault "CP" if the address is not dword aligned or outside VRAM.
 */
void cp_write_fence(Vram &vram, const VLG_CMD_SYNC &sync);

/**
 * DUMP: copy cmd.rect of the surface described at cmd.surface to display
 * cmd.display_id, pixel for pixel, clipped to the surface and the display
 * (rect max exclusive; an empty intersection copies nothing). Returns the
 * number of pixels copied.
 *
 * Errors: GpuFault "CP": unknown display id (named in the summary), display
 * format different from the surface format, surface descriptor outside VRAM
 * or malformed, surface pixels outside VRAM, display without memory or with
 * a stride smaller than a row.
 */
uint64_t cp_dump_to_display(const Vram &vram, const VLG_CMD_DUMP &cmd, const GpuHost &host);

} // namespace vlgpu::sim
