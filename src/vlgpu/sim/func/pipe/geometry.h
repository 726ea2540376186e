/*
 * vlgpu simulator, functional pipeline: the GE (geometry engine, seed 001
 * §3.2 and fig. 2): index fetch, vertex fetch, the vertex-shader input
 * preload and output collection, and primitive assembly.
 *
 * Rules and sources:
 *  - indices (GL ES 3.0 §2.8.1, pipe_draw_info): element i of an indexed
 *    draw is index_buffer[start + i] (U8/U16/U32, little-endian); an index
 *    equal to restart_index (before base_vertex is added) restarts the
 *    primitive when primitive_restart is set (§2.8.1 "primitive restart");
 *    otherwise the vertex id is index + base_vertex. An index beyond
 *    index_buffer_size is a GpuFault("GE").
 *  - vertex fetch (§2.9): attribute i comes from vertex_element i; element
 *    number = vertex id for per-vertex attributes, start_instance +
 *    instance / instance_divisor for per-instance ones; bytes at
 *    address + number * stride + src_offset converted by format_fetch_vertex.
 *    A fetch that does not lie inside [address, address + size) of its
 *    vertex buffer is a GpuFault("GE") (docs/hw.md vertex_buffer.size: "GE
 *    faults on a fetch beyond it"; GL ES leaves out-of-range fetches
 *    undefined, so faulting is allowed and shows driver bugs at once).
 *  - VERTEX_ID = index + base_vertex (indexed) or start + i; INSTANCE_ID =
 *    0-based instance (start_instance not added), docs/hw.md.
 *  - primitive assembly: Gallium's draw module (draw_decompose_tmp.h), which
 *    is how softpipe orders vertices: strips/fans keep the provoking vertex
 *    first (flatshade_first) or last (GL's rule, §2.17 Table 2.12); odd strip
 *    triangles are (i+1, i, i+2) (last) or (i, i+2, i+1) (first); a fan
 *    triangle is (0, i+1, i+2) (last) or (i+1, i+2, 0) (first); a line loop
 *    is closed at the end of the draw and at every restart; incomplete
 *    primitives are dropped.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "package.h"
#include "pipe_types.h"

namespace vlgpu::sim {

/** One vertex attribute resolved against its vertex buffer. */
struct GeAttrib {
   vlg_format format = VLG_FORMAT_NONE;
   uint32_t bytes = 0;      /**< bytes of one element (vlg_format_bytes) */
   uint64_t vb_address = 0; /**< vertex buffer address (vertex 0) */
   uint64_t vb_size = 0;    /**< bytes readable from vb_address */
   uint32_t stride = 0;     /**< bytes between elements */
   uint32_t src_offset = 0; /**< bytes from the element start */
   uint32_t divisor = 0;    /**< 0 per vertex, n per n instances */
   unsigned vb_index = 0;   /**< vertex_buffer index (for messages) */
};

/** One VS input-map entry (VS side of shader_state.inputs). */
struct VsInput {
   uint8_t reg = 0, mask = 0;
   vlg_input_semantic semantic = VLG_INPUT_SEMANTIC_ATTRIBUTE;
   uint8_t index = 0; /**< attribute number for ATTRIBUTE */
};

/** One VS output the pipeline keeps: register @reg, valid components @mask,
 * copied to vertex slot @slot (VertexLayout). */
struct VsOutput {
   uint8_t reg = 0, mask = 0;
   uint16_t slot = 0;
};

enum : unsigned {
   kMaxSoBuffers = 4,  /**< stream_output.buffers[] */
   kMaxSoOutputs = 64, /**< stream_output.outputs[] */
};

/** One captured output, resolved against the vertex layout. */
struct SoOutput {
   uint16_t slot = 0;   /**< vertex slot (VertexLayout) holding the VS register */
   uint8_t start = 0;   /**< first component */
   uint8_t count = 0;   /**< components, 1..4 */
   uint8_t buffer = 0;  /**< so_buffer index */
   uint16_t dst = 0;    /**< dword offset within the vertex */
};

/** The stream-output plan of one draw (part of GeState; stream_output.h). */
struct SoPlan {
   bool enabled = false; /**< draw_info.stream_output != 0 */
   VLG_STREAM_OUTPUT block = {};
   SoOutput outputs[kMaxSoOutputs];
   unsigned num_outputs = 0;
   unsigned used_buffers = 0; /**< bit b: an output writes buffer b */
};

/**
 * Read and check draw_info.stream_output of @pkg (if any) and add every
 * captured VS register the layout of @ge does not keep yet to @ge (outputs
 * and layout slots). Called by make_ge_state(pkg, vram).
 */
struct GeState;
void ge_load_stream_output(GeState &ge, const DrawPackage &pkg, const Vram &vram);

/** GE state of one draw (make_ge_state). */
struct GeState {
   VLG_DRAW_INFO draw = {};
   std::vector<GeAttrib> attribs; /**< [num_vertex_elements] */
   VsInput inputs[kMaxShaderIo];
   unsigned num_inputs = 0;
   VsOutput outputs[kMaxShaderIo];
   unsigned num_outputs = 0;
   VertexLayout layout; /**< where shaded vertices keep their outputs */
   bool flatshade_first = false;
   SoPlan so; /**< stream output (make_ge_state with VRAM) */
};

/**
 * Derive the GE state from a validated package: attribute fetch plan, VS
 * input and output plans and the vertex layout (clip position, window
 * position, point coordinate, POINT_SIZE if the VS writes it, and the VARYINGs
 * the FS reads).
 */
GeState make_ge_state(const DrawPackage &pkg);
/** The same plus the draw's stream_output block (ge_load_stream_output). */
GeState make_ge_state(const DrawPackage &pkg, const Vram &vram);

/** Result of fetching element @i of an indexed draw. */
struct IndexFetch {
   uint32_t index; /**< raw index from the buffer */
   bool restart;   /**< equals restart_index and primitive_restart is on */
};

/**
 * Fetch element @i (0-based, i < draw.count) of an indexed draw from
 * index_buffer[start + i]. GpuFault("GE", "index fetch out of bounds") if the
 * index lies beyond index_buffer_size bytes (or start + i overflows).
 */
IndexFetch ge_fetch_index(const GeState &s, const Vram &vram, uint32_t i);

/**
 * Values of the VS input registers of one vertex: out[k] = 4 words for
 * input-map entry k (attributes through format_fetch_vertex; VERTEX_ID and
 * INSTANCE_ID as uint32 in x, 0 in y, z, w). @vertex_id is index +
 * base_vertex or start + i (int64 so a negative sum faults instead of
 * wrapping); @instance is the 0-based instance number.
 * GpuFault("GE", "vertex fetch out of bounds") if an attribute read leaves its
 * vertex buffer.
 */
void ge_fetch_vs_inputs(const GeState &s, const Vram &vram, int64_t vertex_id, uint32_t instance,
                        uint32_t (*out)[4]);

/**
 * Copy the VS outputs of one lane into a vertex (layout of @s): @reg(r)
 * returns a pointer to the lane's register r (4 words). Components outside
 * an output's mask read as 0.
 */
template <typename RegFn>
void
ge_store_vs_outputs(const GeState &s, RegFn &&reg, float *vertex)
{
   for (unsigned k = 0; k < s.num_outputs; k++) {
      const VsOutput &o = s.outputs[k];
      const uint32_t *r = reg(o.reg);
      uint32_t *d = reinterpret_cast<uint32_t *>(vertex + o.slot * 4);
      for (unsigned c = 0; c < 4; c++)
         d[c] = (o.mask >> c & 1) ? r[c] : 0u;
   }
}

/**
 * Primitive assembly, one vertex at a time (so a cycle-mode GE can run it
 * as vertices come back from the SPC). Vertices are opaque 32-bit numbers
 * (the functional draw uses indices into its shaded-vertex store).
 */
class PrimitiveAssembler {
 public:
   PrimitiveAssembler(vlg_prim prim, bool flatshade_first) : prim_(prim), first_(flatshade_first) {}

   /** Feed the next vertex in draw order; calls emit(const Primitive &) for
    * every primitive it completes. */
   template <typename Emit> void push(uint32_t v, Emit &&emit);
   /** Primitive restart (or the end of an instance/draw): closes a line loop
    * and drops an incomplete primitive. */
   template <typename Emit> void restart(Emit &&emit);

 private:
   vlg_prim prim_;
   bool first_;
   uint32_t n_ = 0;                  /* vertices since the last restart */
   uint32_t a_ = 0, b_ = 0, c0_ = 0; /* previous two vertices, first vertex */
};

template <typename Emit>
void
PrimitiveAssembler::push(uint32_t v, Emit &&emit)
{
   const uint32_t i = n_++;
   switch (prim_) {
   case VLG_PRIM_POINTS:
      emit(Primitive{{v, 0, 0}, 1});
      break;
   case VLG_PRIM_LINES:
      if (i & 1)
         emit(Primitive{{b_, v, 0}, 2});
      break;
   case VLG_PRIM_LINE_STRIP:
   case VLG_PRIM_LINE_LOOP:
      if (i >= 1)
         emit(Primitive{{b_, v, 0}, 2});
      break;
   case VLG_PRIM_TRIANGLES:
      if (i % 3 == 2)
         emit(Primitive{{a_, b_, v}, 3});
      break;
   case VLG_PRIM_TRIANGLE_STRIP:
      if (i >= 2) {
         const uint32_t t = i - 2; /* triangle number */
         if (!(t & 1))
            emit(Primitive{{a_, b_, v}, 3});
         else if (first_)
            emit(Primitive{{a_, v, b_}, 3});
         else
            emit(Primitive{{b_, a_, v}, 3});
      }
      break;
   case VLG_PRIM_TRIANGLE_FAN:
      if (i >= 2) {
         if (first_)
            emit(Primitive{{b_, v, c0_}, 3});
         else
            emit(Primitive{{c0_, b_, v}, 3});
      }
      break;
   }
   if (i == 0)
      c0_ = v;
   a_ = b_;
   b_ = v;
}

template <typename Emit>
void
PrimitiveAssembler::restart(Emit &&emit)
{
   if (prim_ == VLG_PRIM_LINE_LOOP && n_ >= 2)
      emit(Primitive{{b_, c0_, 0}, 2});
   n_ = 0;
}

/** GE counters (per draw). */
struct GeStats {
   uint64_t indices = 0;          /**< indices fetched */
   uint64_t restarts = 0;         /**< restart indices seen */
   uint64_t vertices_fetched = 0; /**< vertices whose attributes were fetched (= shaded) */
   uint64_t vertices_reused = 0;  /**< draw elements served from the vertex cache */
   uint64_t primitives = 0;       /**< primitives assembled */
   uint64_t vs_groups = 0;        /**< VS thread groups run */
   uint64_t so_generated = 0;     /**< stream output: primitives generated */
   uint64_t so_written = 0;       /**< stream output: primitives written to the buffers */
};

} // namespace vlgpu::sim
