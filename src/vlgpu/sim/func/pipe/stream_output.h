/*
 * vlgpu simulator, functional pipeline: stream output (transform feedback,
 * GL ES 3.0 §2.15; docs/hw.md "Stream output", draw_info.stream_output).
 *
 * The geometry stage writes, per complete primitive in draw order, the
 * captured VS outputs of its vertices to the bound buffers:
 *  - primitives come from a PrimitiveAssembler in the order of the
 *    provoking-vertex convention, as Gallium's draw module does for stream
 *    output (draw_so_emit_tmp.h: last_vertex_last = !flatshade_first):
 *    GL's last-vertex order (odd strip triangles (i+1, i, i+2), fan
 *    triangles (0, i+1, i+2)), or with rasterizer.flatshade_first (desktop
 *    glProvokingVertex(GL_FIRST_VERTEX_CONVENTION)) odd strip triangles
 *    (i, i+2, i+1) and fan triangles (i+1, i+2, 0); Piglit
 *    ext_transform_feedback-tessellation ... flat_first checks it;
 *  - a primitive is written only if all its vertices fit into every used
 *    buffer; after the first one that does not fit nothing more is written
 *    (GL ES 3.0 §2.15.2: no partial primitive; draw_pt_so_emit.c);
 *  - every primitive is counted as generated, written ones as written;
 *  - finish() stores each bound buffer's final byte offset at its
 *    filled_size word and adds the counts to the counters block.
 * Functional mode runs it in render_draw(); cycle mode in GPC 0's PE, with
 * the written lines sent through the L2 (docs/simulator-modules.md).
 *
 * Errors: GpuFault("GE", "malformed stream_output", detail) for a block
 * that cannot work (an output register the VS does not output, a component
 * range beyond w, an output beyond its buffer's stride, misaligned or
 * out-of-VRAM buffers, filled_size or counters); the block itself is read
 * with read_hw_block (GpuFault "CP" if it does not unpack).
 */
#pragma once

#include <cstdint>
#include <vector>

#include "geometry.h"
#include "package.h"

namespace vlgpu::sim {

/** VRAM ranges the draw's stream output reads and writes (buffers,
 * filled_size words, counters), for the cycle-mode draw interlock. */
struct SoRange {
   uint64_t address, size;
};
std::vector<SoRange> so_memory_ranges(const SoPlan &plan);

/** Stream-output progress of one draw. */
class StreamOutput {
 public:
   /** Start of the draw: start offsets (append ones read from filled_size). */
   StreamOutput(const SoPlan &plan, const Vram &vram);

   bool enabled() const { return plan_.enabled; }

   /**
    * One primitive of @n vertices (data in the draw's VertexLayout), in
    * GL order. @on_write(address, bytes) is called for every contiguous
    * range written (cycle mode turns them into L2 writes).
    */
   template <typename OnWrite> void primitive(Vram &vram, const float *const *v, unsigned n,
                                              OnWrite &&on_write);
   void primitive(Vram &vram, const float *const *v, unsigned n)
   {
      primitive(vram, v, n, [](uint64_t, uint64_t) {});
   }

   /** End of a draw without a fault: filled_size words and counters. */
   void finish(Vram &vram) const;

   uint64_t generated() const { return generated_; }
   uint64_t written() const { return written_; }
   uint32_t offset(unsigned b) const { return offset_[b]; }

 private:
   const SoPlan &plan_;
   uint32_t offset_[kMaxSoBuffers] = {};
   bool full_ = false;
   uint64_t generated_ = 0, written_ = 0;
};

template <typename OnWrite>
void
StreamOutput::primitive(Vram &vram, const float *const *v, unsigned n, OnWrite &&on_write)
{
   if (!plan_.enabled)
      return;
   generated_++;
   if (full_ || !plan_.num_outputs)
      return;
   const VLG_STREAM_OUTPUT &so = plan_.block;
   for (unsigned b = 0; b < kMaxSoBuffers; b++) {
      const VLG_SO_BUFFER &buf = so.buffers[b];
      if (buf.enable && uint64_t(offset_[b]) + uint64_t(n) * buf.stride > buf.size) {
         full_ = true;
         return;
      }
   }
   for (unsigned k = 0; k < n; k++) {
      for (unsigned i = 0; i < plan_.num_outputs; i++) {
         const SoOutput &o = plan_.outputs[i];
         const VLG_SO_BUFFER &buf = so.buffers[o.buffer];
         const uint64_t addr = buf.address + offset_[o.buffer] + 4u * o.dst;
         vram.write(addr, v[k] + o.slot * 4 + o.start, 4u * o.count, "GE");
         on_write(addr, uint64_t(4u * o.count));
      }
      for (unsigned b = 0; b < kMaxSoBuffers; b++)
         if (so.buffers[b].enable)
            offset_[b] += so.buffers[b].stride;
   }
   written_++;
}

} // namespace vlgpu::sim
