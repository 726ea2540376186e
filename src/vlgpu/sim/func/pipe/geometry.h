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

#include <algorithm>
#include <cstdint>
#include <initializer_list>
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
   kMaxSoBuffers = VLG_HW_MAX_SO_BUFFERS, /**< stream_output.buffers[] */
   kMaxSoOutputs = VLG_HW_MAX_SO_OUTPUTS, /**< stream_output.outputs[] */
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

/** One per-vertex or per-primitive input of the geometry shader
 * (shader_state.inputs of the GS, resolved against the VS outputs). */
struct GsInput {
   uint8_t reg = 0, mask = 0;
   vlg_input_semantic semantic = VLG_INPUT_SEMANTIC_VARYING;
   int16_t vs_slot = -1; /**< vec4 slot of the VS output in a GsPlan VS vertex, -1: reads 0 */
};

/**
 * The geometry-shader plan of a draw with draw_info.gs != 0 (docs/hw.md
 * "Geometry shaders"). The VS then stores every POSITION, POINT_SIZE and
 * VARYING output in a VS vertex of vs_slots vec4 slots (vs_outputs), the GS
 * reads them through inputs[] (preload: register reg + v * input_stride for
 * input vertex v), and GeState::outputs / layout describe the GS outputs
 * (what the PE, FS and stream output see).
 */
struct GsPlan {
   bool enabled = false;
   unsigned vertices_in = 0;  /**< shader_state.gs_vertices_in */
   unsigned input_stride = 0; /**< shader_state.gs_input_stride (registers) */
   unsigned max_vertices = 0; /**< shader_state.gs_max_vertices */
   unsigned invocations = 1;  /**< shader_state.gs_invocations: lanes per input primitive */
   vlg_prim output_prim = VLG_PRIM_POINTS;
   GsInput inputs[kMaxShaderIo];
   unsigned num_inputs = 0;
   VsOutput vs_outputs[kMaxShaderIo]; /**< VS register -> slot of the VS vertex */
   unsigned num_vs_outputs = 0;
   unsigned vs_slots = 0; /**< vec4 slots per VS vertex */
};

/** GE state of one draw (make_ge_state). */
struct GeState {
   VLG_DRAW_INFO draw = {};
   std::vector<GeAttrib> attribs; /**< [num_vertex_elements] */
   VsInput inputs[kMaxShaderIo];
   unsigned num_inputs = 0;
   /** Outputs of the last stage before the PE (the VS, or the GS when
    *  gs.enabled) kept in the layout below. */
   VsOutput outputs[kMaxShaderIo];
   unsigned num_outputs = 0;
   VertexLayout layout; /**< where shaded (VS or GS output) vertices keep their outputs */
   bool flatshade_first = false;
   SoPlan so; /**< stream output (make_ge_state with VRAM) */
   GsPlan gs; /**< geometry shader (draw_info.gs) */
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
ge_store_outputs(const VsOutput *outputs, unsigned num_outputs, RegFn &&reg, float *vertex)
{
   for (unsigned k = 0; k < num_outputs; k++) {
      const VsOutput &o = outputs[k];
      const uint32_t *r = reg(o.reg);
      uint32_t *d = reinterpret_cast<uint32_t *>(vertex + o.slot * 4);
      for (unsigned c = 0; c < 4; c++)
         d[c] = (o.mask >> c & 1) ? r[c] : 0u;
   }
}

template <typename RegFn>
void
ge_store_vs_outputs(const GeState &s, RegFn &&reg, float *vertex)
{
   ge_store_outputs(s.outputs, s.num_outputs, reg, vertex);
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
   /** Primitive restart (or the end of an instance/draw): closes a line loop,
    * emits a polygon's last triangle (held back until then: only the last
    * one has the closing edge) and drops an incomplete primitive. */
   template <typename Emit> void restart(Emit &&emit);
   /** The lowest vertex number a later push() or restart() may still emit
    *  (a fan's or loop's first vertex, the previous two), ~0u if none. */
   uint32_t oldest_kept() const
   {
      if (n_ == 0 || prim_ == VLG_PRIM_POINTS)
         return ~0u;
      uint32_t m = n_ >= 2 ? std::min(a_, b_) : b_;
      if (n_ >= 3 && (prim_ == VLG_PRIM_QUADS || prim_ == VLG_PRIM_QUAD_STRIP))
         m = std::min(m, p_);
      if (prim_ == VLG_PRIM_TRIANGLE_FAN || prim_ == VLG_PRIM_LINE_LOOP ||
          prim_ == VLG_PRIM_POLYGON)
         m = std::min(m, c0_);
      return m;
   }

 private:
   /* Primitive::edges bits: edge v[k] -> v[(k + 1) % 3] */
   static constexpr uint8_t kE0 = 1, kE1 = 2, kE2 = 4;
   vlg_prim prim_;
   bool first_;
   uint32_t n_ = 0;                  /* vertices since the last restart */
   uint32_t a_ = 0, b_ = 0, c0_ = 0; /* previous two vertices, first vertex */
   uint32_t p_ = 0;                  /* the vertex before a_ (quads) */
   Primitive held_{};                /* POLYGON: the triangle restart() completes */
   bool holding_ = false;
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
   /* Quads and polygons as draw_decompose_tmp.h splits them (with
    * quads_flatshade_last false, PIPE_CAP_QUADS_FOLLOW_PROVOKING_VERTEX_
    * CONVENTION): the edges inside the quad or polygon are not boundary
    * edges. */
   case VLG_PRIM_QUADS:
      if (i % 4 == 3) {
         if (!first_) {
            emit(Primitive{{p_, a_, v}, 3, kE0 | kE2});
            emit(Primitive{{a_, b_, v}, 3, kE0 | kE1});
         } else {
            emit(Primitive{{p_, a_, b_}, 3, kE0 | kE1});
            emit(Primitive{{p_, b_, v}, 3, kE1 | kE2});
         }
      }
      break;
   case VLG_PRIM_QUAD_STRIP:
      /* quad (i-3, i-2, i-1, i) for odd i: its edges are i-3 -> i-2,
       * i-2 -> i, i -> i-1 and i-1 -> i-3 */
      if (i >= 3 && (i & 1)) {
         if (!first_) {
            emit(Primitive{{b_, p_, v}, 3, kE0 | kE2});
            emit(Primitive{{p_, a_, v}, 3, kE0 | kE1});
         } else {
            /* draw flags E0|E1 and E1|E2 here, which marks the diagonal
             * i-3 -> i and leaves i-1 -> i-3 out: the quad's outline is
             * i-3 -> i-2 -> i -> i-1 (test_assembly.cpp checks it) */
            emit(Primitive{{p_, v, b_}, 3, kE1 | kE2});
            emit(Primitive{{p_, a_, v}, 3, kE0 | kE1});
         }
      }
      break;
   case VLG_PRIM_POLYGON:
      /* a fan around vertex 0, the provoking vertex either way (last =
       * vertex 0 for the last-vertex convention) */
      if (i >= 2) {
         if (holding_)
            emit(held_);
         const uint8_t open = first_ ? kE1 : kE0, first_edge = first_ ? kE0 : kE2;
         held_ = first_ ? Primitive{{c0_, b_, v}, 3, open} : Primitive{{b_, v, c0_}, 3, open};
         if (i == 2)
            held_.edges |= first_edge;
         holding_ = true;
      }
      break;
   case VLG_PRIM_LINES_ADJACENCY:
   case VLG_PRIM_LINE_STRIP_ADJACENCY:
   case VLG_PRIM_TRIANGLES_ADJACENCY:
   case VLG_PRIM_TRIANGLE_STRIP_ADJACENCY:
      /* only a geometry shader's input (GsAssembler below): package checks
       * refuse a draw of them without a GS (package.cpp) */
      break;
   }
   if (i == 0)
      c0_ = v;
   p_ = a_;
   a_ = b_;
   b_ = v;
}

template <typename Emit>
void
PrimitiveAssembler::restart(Emit &&emit)
{
   if (prim_ == VLG_PRIM_LINE_LOOP && n_ >= 2)
      emit(Primitive{{b_, c0_, 0}, 2});
   if (holding_) {
      /* the polygon's last triangle has its closing edge (last -> 0) */
      held_.edges |= first_ ? kE2 : kE1;
      emit(held_);
      holding_ = false;
   }
   n_ = 0;
}

/** A geometry-shader input primitive: vertex numbers in the order the GS
 * receives them (gl_in[0..n-1]). */
struct GsPrim {
   uint32_t v[6];
   uint8_t num_vertices; /**< 1, 2, 3, 4 or 6 */
};

/**
 * Input-primitive assembly for the geometry shader (GL 3.2 core §2.6.1,
 * §2.12.1 and Table 2.4), a port of Gallium's draw_decompose_tmp.h as
 * draw_gs_tmp.h uses it (last_vertex_last = !flatshade_first): points,
 * lines, strips, loops, triangles, strips, fans as PrimitiveAssembler; lines
 * with adjacency (i..i+3), line strips with adjacency (i, i+1, i+2, i+3),
 * triangles with adjacency (6i..6i+5), triangle strips with adjacency (1st,
 * 1/2, 2nd, 2/3, 3rd, 3/1 of Table 2.4, odd triangles reordered by the
 * provoking-vertex convention). The vertices of a run (since the last
 * restart) are kept and decomposed at restart(), because the last triangle
 * of a strip with adjacency depends on the run's length.
 */
class GsAssembler {
 public:
   GsAssembler(vlg_prim prim, bool flatshade_first)
       : prim_(prim), first_(flatshade_first), pa_(prim, flatshade_first)
   {
   }
   /** Feed the next vertex in draw order: a primitive without adjacency is
    *  passed to emit(const GsPrim &) as soon as it is complete; with
    *  adjacency the run is kept until restart(). */
   template <typename Emit> void push(uint32_t v, Emit &&emit);
   /** End of a run (primitive restart, end of instance): emit(const GsPrim &)
    * for each complete primitive of the run not emitted yet, in order;
    * incomplete ones are dropped. */
   template <typename Emit> void restart(Emit &&emit);
   /** The lowest vertex number a later push() or restart() may still emit,
    *  ~0u if none (the cycle-mode GE frees older VS vertices). */
   uint32_t oldest_kept() const
   {
      if (!adjacency())
         return pa_.oldest_kept();
      uint32_t m = ~0u;
      for (uint32_t v : run_)
         m = std::min(m, v);
      return m;
   }

 private:
   bool adjacency() const
   {
      return prim_ == VLG_PRIM_LINES_ADJACENCY || prim_ == VLG_PRIM_LINE_STRIP_ADJACENCY ||
             prim_ == VLG_PRIM_TRIANGLES_ADJACENCY ||
             prim_ == VLG_PRIM_TRIANGLE_STRIP_ADJACENCY;
   }
   template <typename Emit> static auto as_gs(Emit &emit)
   {
      return [&emit](const Primitive &p) {
         GsPrim g{};
         for (unsigned j = 0; j < p.num_vertices; j++)
            g.v[j] = p.v[j];
         g.num_vertices = uint8_t(p.num_vertices);
         emit(g);
      };
   }
   vlg_prim prim_;
   bool first_;
   PrimitiveAssembler pa_; /* without adjacency */
   std::vector<uint32_t> run_; /* with adjacency */
};

template <typename Emit>
void
GsAssembler::push(uint32_t v, Emit &&emit)
{
   if (adjacency())
      run_.push_back(v);
   else
      pa_.push(v, as_gs(emit));
}

template <typename Emit>
void
GsAssembler::restart(Emit &&emit)
{
   const std::vector<uint32_t> &e = run_;
   const size_t count = e.size();
   const bool last_vertex_last = !first_;
   auto P = [&](std::initializer_list<uint32_t> l) {
      GsPrim p{};
      for (uint32_t v : l)
         p.v[p.num_vertices++] = v;
      emit(p);
   };
   switch (prim_) {
   case VLG_PRIM_LINES_ADJACENCY:
      for (size_t i = 0; i + 3 < count; i += 4)
         P({e[i], e[i + 1], e[i + 2], e[i + 3]});
      break;
   case VLG_PRIM_LINE_STRIP_ADJACENCY:
      for (size_t i = 0; i + 3 < count; i++)
         P({e[i], e[i + 1], e[i + 2], e[i + 3]});
      break;
   case VLG_PRIM_TRIANGLES_ADJACENCY:
      for (size_t i = 0; i + 5 < count; i += 6)
         P({e[i], e[i + 1], e[i + 2], e[i + 3], e[i + 4], e[i + 5]});
      break;
   case VLG_PRIM_TRIANGLE_STRIP_ADJACENCY:
      if (count >= 6) {
         uint32_t idx[6];
         idx[0] = e[1];
         idx[2] = e[0];
         idx[4] = e[2];
         idx[3] = e[4];
         for (size_t i = 0; i + 5 < count; i += 2) {
            idx[1] = idx[0];
            idx[0] = idx[2];
            idx[2] = idx[4];
            idx[4] = idx[3];
            idx[3] = e[i + ((i + 7 < count) ? 6 : 5)];
            idx[5] = e[i + 3];
            if (!(i & 2))
               P({idx[0], idx[1], idx[2], idx[3], idx[4], idx[5]});
            else if (last_vertex_last)
               P({idx[2], idx[1], idx[0], idx[5], idx[4], idx[3]});
            else
               P({idx[0], idx[5], idx[4], idx[3], idx[2], idx[1]});
         }
      }
      break;
   default:
      pa_.restart(as_gs(emit));
      break;
   }
   run_.clear();
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
