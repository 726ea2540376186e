/*
 * Command-queue packers for the simulator's tests (device, cycle-mode units):
 * each appends one command of docs/hw.md "Command queue", packed with the
 * generated VLG_CMD_<NAME>_pack (vlgpu_hw.xml), to a queue of dwords.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "vlg_hw.h"

namespace vlgpu::sim::test {

/** DRAW of the draw_info block at @draw_info. */
inline void
cmd_draw(std::vector<uint32_t> &q, uint64_t draw_info)
{
   VLG_CMD_DRAW c;
   VLG_CMD_DRAW_init(&c);
   c.draw_info = draw_info;
   uint32_t w[VLG_CMD_DRAW_LENGTH];
   VLG_CMD_DRAW_pack(w, &c);
   q.insert(q.end(), w, w + VLG_CMD_DRAW_LENGTH);
}

/** SYNC writing @value to @fence_address. */
inline void
cmd_sync(std::vector<uint32_t> &q, uint64_t fence_address, uint32_t value)
{
   VLG_CMD_SYNC c;
   VLG_CMD_SYNC_init(&c);
   c.fence_address = fence_address;
   c.fence_value = value;
   uint32_t w[VLG_CMD_SYNC_LENGTH];
   VLG_CMD_SYNC_pack(w, &c);
   q.insert(q.end(), w, w + VLG_CMD_SYNC_LENGTH);
}

/** DUMP of the rectangle [x0, x1) x [y0, y1) (pixels) of the surface block
 *  at @surface to display @display. */
inline void
cmd_dump(std::vector<uint32_t> &q, uint64_t surface, uint32_t display, unsigned x0, unsigned y0,
         unsigned x1, unsigned y1)
{
   VLG_CMD_DUMP c;
   VLG_CMD_DUMP_init(&c);
   c.surface = surface;
   c.display_id = display;
   c.rect.minx = x0;
   c.rect.miny = y0;
   c.rect.maxx = x1;
   c.rect.maxy = y1;
   uint32_t w[VLG_CMD_DUMP_LENGTH];
   VLG_CMD_DUMP_pack(w, &c);
   q.insert(q.end(), w, w + VLG_CMD_DUMP_LENGTH);
}

/** DUMP of [0, x1) x [0, y1). */
inline void
cmd_dump(std::vector<uint32_t> &q, uint64_t surface, uint32_t display, unsigned x1, unsigned y1)
{
   cmd_dump(q, surface, display, 0, 0, x1, y1);
}

/** HALT. */
inline void
cmd_halt(std::vector<uint32_t> &q)
{
   VLG_CMD_HALT c;
   VLG_CMD_HALT_init(&c);
   uint32_t w;
   VLG_CMD_HALT_pack(&w, &c);
   q.push_back(w);
}

/** DISPATCH of the compute_info block at @compute_info. */
inline void
cmd_dispatch(std::vector<uint32_t> &q, uint64_t compute_info)
{
   VLG_CMD_DISPATCH c;
   VLG_CMD_DISPATCH_init(&c);
   c.compute_info = compute_info;
   uint32_t w[VLG_CMD_DISPATCH_LENGTH];
   VLG_CMD_DISPATCH_pack(w, &c);
   q.insert(q.end(), w, w + VLG_CMD_DISPATCH_LENGTH);
}

/** COPY of the copy_info block at @copy_info. */
inline void
cmd_copy(std::vector<uint32_t> &q, uint64_t copy_info)
{
   VLG_CMD_COPY c;
   VLG_CMD_COPY_init(&c);
   c.copy_info = copy_info;
   uint32_t w[VLG_CMD_COPY_LENGTH];
   VLG_CMD_COPY_pack(w, &c);
   q.insert(q.end(), w, w + VLG_CMD_COPY_LENGTH);
}

} // namespace vlgpu::sim::test
