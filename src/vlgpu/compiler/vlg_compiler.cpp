/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_compiler.cpp — the C API (vlg_compiler.h): runs the passes of
 * vlg_passes.h in order on a clone of the caller's NIR and packages the
 * result for the driver.
 */
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "compiler/glsl_types.h"
#include "compiler/nir/nir.h"

#include "vlg_compiler.h"
#include "vlg_passes.h"

/* shader_state.stage takes gl_shader_stage's numbers (MESA_SHADER_*, which
 * Gallium's PIPE_SHADER_* keep too: vlg_program.c). */
static_assert((int)VLG_SHADER_STAGE_VERTEX == (int)MESA_SHADER_VERTEX, "shader_stage");
static_assert((int)VLG_SHADER_STAGE_FRAGMENT == (int)MESA_SHADER_FRAGMENT, "shader_stage");
static_assert((int)VLG_SHADER_STAGE_COMPUTE == (int)MESA_SHADER_COMPUTE, "shader_stage");
static_assert((int)VLG_SHADER_STAGE_GEOMETRY == (int)MESA_SHADER_GEOMETRY, "shader_stage");

using namespace vlgpu;

extern "C" int
vlg_varying_index(int slot)
{
   if (slot >= VARYING_SLOT_VAR0 && slot < VARYING_SLOT_VAR0 + 16)
      return slot - VARYING_SLOT_VAR0;
   switch (slot) {
   case VARYING_SLOT_COL0:
      return 16;
   case VARYING_SLOT_COL1:
      return 17;
   case VARYING_SLOT_BFC0:
      return 18;
   case VARYING_SLOT_BFC1:
      return 19;
   case VARYING_SLOT_FOGC:
      return 20;
   case VARYING_SLOT_CLIP_VERTEX:
      return 29;
   case VARYING_SLOT_VAR0 + 16:
      return 30;
   case VARYING_SLOT_VAR0 + 17:
      return 31;
   default:
      if (slot >= VARYING_SLOT_TEX0 && slot <= VARYING_SLOT_TEX7)
         return 21 + (slot - VARYING_SLOT_TEX0);
      return -1;
   }
}

/* malloc'ed copies for the C callers (NULL when out of memory) */
static char *
xstrdup(const char *s)
{
   return strdup(s);
}

static char *
xstrdup(const std::string &s)
{
   char *p = (char *)malloc(s.size() + 1);
   if (p)
      memcpy(p, s.c_str(), s.size() + 1);
   return p;
}

extern "C" char *
vlg_shader_stats_line(const char *name, const struct vlg_shader_stats *st)
{
   char buf[512];
   snprintf(buf, sizeof(buf),
            "%s: %u instrs, %u ops, %u units, %u bytes, %u regs, %u gb entries, %u cycles, "
            "%u tput, %.3f dual",
            name ? name : "shader", st->instructions, st->ops, st->units, st->bytes, st->registers,
            st->gb_entries, st->cycles, st->tput_cycles, st->dual_rate);
   return xstrdup(buf);
}

static const char *
stage_abbrev(unsigned stage)
{
   return stage == MESA_SHADER_VERTEX     ? "VS"
          : stage == MESA_SHADER_FRAGMENT ? "FS"
          : stage == MESA_SHADER_COMPUTE  ? "CS"
          : stage == MESA_SHADER_GEOMETRY ? "GS"
                                          : "?";
}

/* a name of the generated vlg_hw.h enums, "?" for a value they do not name */
static const char *
or_unknown(const char *name)
{
   return name ? name : "?";
}

static std::string
disassembly(const struct vlg_compiled_shader *cs, const char *name)
{
   char *buf = nullptr;
   size_t size = 0;
   FILE *fp = open_memstream(&buf, &size);
   if (!fp)
      return "";
   fprintf(fp, "; %s (%s)\n", name, stage_abbrev(cs->stage));
   if (cs->stage == MESA_SHADER_GEOMETRY)
      fprintf(fp,
              "; gs vertices_in %u, output_prim %s, max_vertices %u, input_stride %u, "
              "invocations %u\n",
              cs->state.gs_vertices_in,
              cs->state.gs_output_prim == VLG_PRIM_POINTS       ? "POINTS"
              : cs->state.gs_output_prim == VLG_PRIM_LINE_STRIP ? "LINE_STRIP"
                                                                : "TRIANGLE_STRIP",
              cs->state.gs_max_vertices, cs->state.gs_input_stride, cs->state.gs_invocations);
   for (unsigned i = 0; i < cs->state.num_inputs; i++) {
      const struct VLG_SHADER_INPUT &in = cs->state.inputs[i];
      fprintf(fp, "; input  R%u.%s%s%s%s <- %s %u%s%s\n", in.reg, in.mask & 1 ? "x" : "",
              in.mask & 2 ? "y" : "", in.mask & 4 ? "z" : "", in.mask & 8 ? "w" : "",
              or_unknown(vlg_input_semantic_name(in.semantic)), in.index,
              cs->stage == MESA_SHADER_FRAGMENT ? " " : "",
              cs->stage == MESA_SHADER_FRAGMENT ? or_unknown(vlg_interp_name(in.interp)) : "");
   }
   for (unsigned i = 0; i < cs->state.num_outputs; i++) {
      const struct VLG_SHADER_OUTPUT &o = cs->state.outputs[i];
      fprintf(fp, "; output R%u.%s%s%s%s -> %s %u\n", o.reg, o.mask & 1 ? "x" : "",
              o.mask & 2 ? "y" : "", o.mask & 4 ? "z" : "", o.mask & 8 ? "w" : "",
              or_unknown(vlg_output_semantic_name(o.semantic)), o.index);
   }
   for (unsigned e = 0; e < cs->num_consts; e++) {
      fprintf(fp, "; C%-3u = (", e);
      for (unsigned c = 0; c < 4; c++) {
         uint32_t dw = e * 4 + c;
         const struct vlg_uniform_copy *u = nullptr;
         for (unsigned k = 0; k < cs->num_uniform_copies; k++)
            if (dw >= cs->uniform_copies[k].dst &&
                dw < cs->uniform_copies[k].dst + cs->uniform_copies[k].count)
               u = &cs->uniform_copies[k];
         if (u) {
            unsigned src = u->src + (dw - u->dst);
            fprintf(fp, "%su%u.%c", c ? ", " : "", src / 4, "xyzw"[src % 4]);
         } else {
            uint32_t u = cs->consts[e][c];
            float f;
            memcpy(&f, &u, 4);
            /* integers and NaN/inf patterns in hex, floats as floats */
            if (((u & 0x7f800000u) == 0 && u != 0 && u != 0x80000000u) ||
                (u & 0x7f800000u) == 0x7f800000u)
               fprintf(fp, "%s0x%x", c ? ", " : "", u);
            else
               fprintf(fp, "%s%g", c ? ", " : "", f);
         }
      }
      fprintf(fp, ")\n");
   }
   struct vlg_isa_error err;
   if (vlg_disasm_program(fp, cs->code, cs->state.code_size, VLG_DISASM_ADDRESS, &err) < 0)
      fprintf(fp, "; disassembly error: %s\n", err.msg);
   char *line = vlg_shader_stats_line(name, &cs->stats);
   fprintf(fp, "; %s\n", line);
   free(line);
   fclose(fp);
   std::string s(buf, size);
   free(buf);
   return s;
}

namespace {

/* the switches (vlg_compiler.h): name, member, help; seeds 000/003 measured
 * low-bank priority and dual-phase pairing one at a time */
struct CompileSwitch {
   const char *name;
   bool vlg_compile_options::*member;
   const char *help;
};
const CompileSwitch kCompileSwitches[] = {
   {"no-lowbank", &vlg_compile_options::no_lowbank,
    "no low-bank priority in register allocation (seeds 000/003 section 3.3)"},
   {"no-pack", &vlg_compile_options::no_pack, "no global-buffer packing / constant dedup"},
   {"no-dual", &vlg_compile_options::no_dual, "no dual-phase pairing: one op per instruction"},
   {"no-sched", &vlg_compile_options::no_sched, "no list scheduling (isel order)"},
   {"no-coalesce", &vlg_compile_options::no_coalesce, "no copy coalescing"},
   {"no-nir-opt", &vlg_compile_options::no_nir_opt, "no NIR optimisation loop"},
   {"no-vectorize", &vlg_compile_options::no_vectorize,
    "no nir_opt_vectorize (scalar ops merged into vec4 ops)"},
   {"no-reassoc", &vlg_compile_options::no_reassoc,
    "no splitting of long floating-point sums into parallel partial sums"},
};
constexpr unsigned kNumCompileSwitches = sizeof(kCompileSwitches) / sizeof(kCompileSwitches[0]);

} // namespace

extern "C" unsigned
vlg_compile_switch_count(void)
{
   return kNumCompileSwitches;
}

extern "C" const char *
vlg_compile_switch_name(unsigned index)
{
   return index < kNumCompileSwitches ? kCompileSwitches[index].name : nullptr;
}

extern "C" const char *
vlg_compile_switch_help(unsigned index)
{
   return index < kNumCompileSwitches ? kCompileSwitches[index].help : nullptr;
}

extern "C" void
vlg_compile_options_set_switch(struct vlg_compile_options *o, unsigned index, bool off)
{
   if (index < kNumCompileSwitches)
      o->*kCompileSwitches[index].member = off;
}

extern "C" bool
vlg_compile_options_switch(const struct vlg_compile_options *o, unsigned index)
{
   return index < kNumCompileSwitches && o->*kCompileSwitches[index].member;
}

namespace vlgpu {

void (*pass_hook_for_tests)(const char *pass, Shader &S) = nullptr;

} // namespace vlgpu

namespace {

/* One vlg_compile_nir call: the options and what a failure's message names
 * (shader, stage, the pass running). */
struct Compilation {
   const vlg_compile_options &opts;
   std::string name;
   unsigned stage;
   const char *pass = "setup"; /* the pass running now */
   std::string ir_log;         /* print_ir: the IR after each pass */

   /* "vlgpu: FS 'name': " */
   std::string prefix() const
   {
      return "vlgpu: " + std::string(stage_abbrev(stage)) + " '" + name + "': ";
   }
   /* the message of an internal error (@what: what failed) */
   std::string internal(const std::string &what) const
   {
      return prefix() + "internal compiler error in pass '" + pass + "': " + what;
   }
};

/* The compilation running on this thread: internal_error() reads it to
 * abort with the full message (VLGPU_DEBUG=ice_abort). */
thread_local const Compilation *current_compilation = nullptr;

const char *
base_name(const char *path)
{
   const char *slash = strrchr(path, '/');
   return slash ? slash + 1 : path;
}

[[noreturn]] void
abort_with(const std::string &msg)
{
   fprintf(stderr, "%s\n", msg.c_str());
   fflush(stderr);
   abort();
}

/* After @pass: validate (debug builds, opts.validate), log the IR
 * (print_ir), then the tests' hook. */
void
after_pass(Compilation &c, Shader &S, const char *pass)
{
#ifndef NDEBUG
   const bool check = true; /* debug builds validate after every pass */
#else
   const bool check = c.opts.validate;
#endif
   if (check && strcmp(pass, "emit") != 0)
      validate(S, pass);
   if (c.opts.print_ir && strcmp(pass, "emit") != 0)
      c.ir_log += std::string("; ---- after ") + pass + " ----\n" + print_shader(S);
   if (pass_hook_for_tests)
      pass_hook_for_tests(pass, S);
}

/* The backend passes after isel, in order (vlg_passes.h). */
Binary
run_backend(Compilation &c, Shader &S)
{
   const vlg_compile_options &o = c.opts;
   c.pass = "pack";
   pack_global_buffer(S, !o.no_pack);
   after_pass(c, S, c.pass);
   c.pass = "legalize";
   legalize(S);
   after_pass(c, S, c.pass);
   if (!o.no_coalesce) {
      c.pass = "coalesce";
      coalesce_copies(S);
      after_pass(c, S, c.pass);
   }
   c.pass = "sched";
   schedule(S, !o.no_sched, !o.no_dual);
   after_pass(c, S, c.pass);
   c.pass = "ra";
   register_allocate(S, !o.no_lowbank, !o.no_coalesce);
   after_pass(c, S, c.pass);
   c.pass = "emit";
   Binary bin = emit_program(S);
   after_pass(c, S, c.pass);
   return bin;
}

/* What the result needs from the NIR, read before isel frees it. */
struct NirFacts {
   unsigned workgroup_size[3];
   unsigned gs_vertices_in, gs_output_prim, gs_max_vertices, gs_invocations;
   bool early_fragment_tests;
};

struct NirDeleter {
   void operator()(nir_shader *n) const { ralloc_free(n); }
};
struct ShaderDeleter {
   void operator()(vlg_compiled_shader *cs) const { vlg_compiled_shader_free(cs); }
};
using CompiledPtr = std::unique_ptr<vlg_compiled_shader, ShaderDeleter>;

template <typename T>
T *
checked_calloc(size_t n, size_t size)
{
   T *p = (T *)calloc(MAX2(n, (size_t)1), size);
   if (!p)
      throw std::bad_alloc();
   return p;
}

/* The fields an input-map and an output-map entry share. */
template <typename Hw, typename Desc>
void
set_map_entry(Hw &h, const Desc &d)
{
   h.reg = d.vreg;
   h.mask = d.mask;
   h.semantic = (decltype(h.semantic))d.semantic;
   h.index = d.index;
}

/* The input and output maps of @S into @cs (hardware words, NIR slots). */
void
fill_io_maps(vlg_compiled_shader *cs, const Shader &S)
{
   for (const InputDesc &in : S.inputs) {
      if (!in.mask)
         continue;
      struct VLG_SHADER_INPUT &h = cs->state.inputs[cs->state.num_inputs];
      VLG_SHADER_INPUT_init(&h);
      set_map_entry(h, in);
      h.interp =
         S.stage == MESA_SHADER_FRAGMENT ? (enum vlg_interp)in.interp : VLG_INTERP_PERSPECTIVE;
      cs->input_locations[cs->state.num_inputs++] = in.location;
   }
   for (const OutputDesc &o : S.outputs) {
      if (o.mask) {
         VLG_SHADER_OUTPUT_init(&cs->state.outputs[cs->state.num_outputs]);
         set_map_entry(cs->state.outputs[cs->state.num_outputs], o);
         cs->output_locations[cs->state.num_outputs++] = o.location;
      }
   }
}

/* The global-buffer image and the uniform copy map of @S into @cs. */
void
fill_global_buffer(vlg_compiled_shader *cs, const Shader &S)
{
   cs->num_consts = S.consts.size();
   cs->consts = checked_calloc<uint32_t[4]>(cs->num_consts, 16);
   for (unsigned e = 0; e < cs->num_consts; e++)
      memcpy(cs->consts[e], S.consts[e].data(), 16);
   cs->num_uniform_copies = S.copies.size();
   cs->uniform_copies =
      checked_calloc<struct vlg_uniform_copy>(cs->num_uniform_copies, sizeof(vlg_uniform_copy));
   for (unsigned i = 0; i < S.copies.size(); i++) {
      cs->uniform_copies[i] = {S.copies[i].dst, S.copies[i].src, S.copies[i].count};
      cs->cb0_dwords = MAX2(cs->cb0_dwords, S.copies[i].src + S.copies[i].count);
   }
}

/* The stage facts and flags of @S (and the NIR's @f) into @cs. */
void
fill_shader_facts(vlg_compiled_shader *cs, const Shader &S, const IoInfo &io, const NirFacts &f)
{
   cs->driver_uniform_base = io.driver_base;
   if (S.stage == MESA_SHADER_COMPUTE) {
      for (unsigned i = 0; i < 3; i++)
         cs->workgroup_size[i] = f.workgroup_size[i];
      cs->shared_size = (io.shared_size + 3) & ~3u;
   }
   /* SSBOs, atomic counters and images in every stage (docs/compiler.md
    * "Memory in vertex and fragment shaders") */
   cs->ssbos_used = io.ssbos_used;
   cs->images_used = io.images_used;
   for (const Block &blk : S.blocks)
      for (const Instr &I : blk.instrs)
         cs->state.writes_memory |=
            !I.dead && I.op == VLG_OP_MEM && !I.shared &&
            (I.kind == VLG_MEMKIND_ST ||
             (I.kind >= VLG_MEMKIND_ATOM_ADD && I.kind <= VLG_MEMKIND_ATOM_CMPXCHG));
   cs->state.early_fragment_tests = f.early_fragment_tests;
   if (S.stage == MESA_SHADER_GEOMETRY) {
      if (f.gs_max_vertices > 256)
         throw CompileError("geometry shader max_vertices " + std::to_string(f.gs_max_vertices) +
                            " above 256");
      cs->state.gs_vertices_in = f.gs_vertices_in;
      cs->state.gs_output_prim = f.gs_output_prim == SHADER_PRIM_POINTS ? VLG_PRIM_POINTS
                                 : f.gs_output_prim == SHADER_PRIM_LINE_STRIP
                                    ? VLG_PRIM_LINE_STRIP
                                    : VLG_PRIM_TRIANGLE_STRIP;
      /* max_vertices = 0: isel left out every EMIT/CUT */
      cs->state.gs_max_vertices = MAX2(1u, f.gs_max_vertices);
      cs->state.gs_input_stride = S.gs_input_stride;
      cs->state.gs_invocations = MAX2(1u, f.gs_invocations);
   }
   cs->samplers_used = S.samplers_used;
   cs->buffers_used = S.buffers_used;
   for (unsigned i = 0; i < 32; i++)
      if (S.samplers_used & (1u << i))
         cs->state.num_samplers = i + 1;
   cs->state.uses_discard = S.uses_discard;
   cs->state.writes_depth = S.writes_depth;
   cs->state.uses_derivatives = S.uses_derivatives;
   cs->color_broadcast = S.color_broadcast;
}

/* The result of a compiled @S, @bin. */
CompiledPtr
make_result(Compilation &c, const Shader &S, const Binary &bin, const IoInfo &io,
            const NirFacts &f)
{
   CompiledPtr cs(checked_calloc<vlg_compiled_shader>(1, sizeof(vlg_compiled_shader)));
   cs->stage = (gl_shader_stage)S.stage;
   VLG_SHADER_STATE_init(&cs->state);
   cs->state.stage = (enum vlg_shader_stage)S.stage;
   cs->state.code_size = bin.units.size();
   cs->code = checked_calloc<uint32_t>(bin.units.size(), 4);
   memcpy(cs->code, bin.units.data(), bin.units.size() * 4);
   cs->state.entry = 0;
   cs->state.num_regs = MAX2(1u, S.num_regs);
   fill_io_maps(cs.get(), S);
   fill_global_buffer(cs.get(), S);
   fill_shader_facts(cs.get(), S, io, f);

   struct vlg_shader_stats &st = cs->stats;
   st.instructions = bin.instructions;
   st.ops = bin.ops;
   st.dual = bin.dual;
   st.units = bin.units.size();
   st.bytes = st.units * 4;
   st.registers = cs->state.num_regs;
   st.gb_entries = cs->num_consts;
   st.cycles = estimate_cycles(S);
   st.tput_cycles = estimate_throughput(S, VLG_STATS_RESIDENT_GROUPS);
   st.max_pressure = S.max_pressure;
   st.dual_rate = st.instructions ? (float)st.dual / st.instructions : 0.0f;

   if (c.opts.disasm || c.opts.print_ir) {
      cs->disasm = xstrdup(c.ir_log + disassembly(cs.get(), c.name.c_str()));
      if (!cs->disasm)
         throw std::bad_alloc();
   }
   return cs;
}

/* Compile a clone of @nir_in; throws what the passes throw. */
CompiledPtr
compile(Compilation &c, nir_shader *nir_in)
{
   const vlg_compile_options &opts = c.opts;
   std::unique_ptr<nir_shader, NirDeleter> nir(nir_shader_clone(nullptr, nir_in));
   if (!nir)
      throw std::bad_alloc();
   nir->options = vlg_compiler_nir_options(nir->info.stage);
   Shader S;
   S.name = c.name;
   IoInfo io;
   PipelineOptions po;
   po.nir_opt = !opts.no_nir_opt;
   po.vectorize = !opts.no_vectorize;
   po.reassoc = !opts.no_reassoc;
   c.pass = "nir";
   nir_prepare(nir.get(), po, io);
   if (opts.print_ir) {
      char *buf = nullptr;
      size_t size = 0;
      FILE *fp = open_memstream(&buf, &size);
      if (fp) {
         nir_print_shader(nir.get(), fp);
         fclose(fp);
         c.ir_log += "; ---- NIR after vlg_nir ----\n" + std::string(buf, size);
         free(buf);
      }
   }
   if (pass_hook_for_tests)
      pass_hook_for_tests(c.pass, S);
   const NirFacts f = {
      {nir->info.workgroup_size[0], nir->info.workgroup_size[1], nir->info.workgroup_size[2]},
      nir->info.gs.vertices_in,
      nir->info.gs.output_primitive,
      nir->info.gs.vertices_out,
      nir->info.gs.invocations,
      nir->info.stage == MESA_SHADER_FRAGMENT && nir->info.fs.early_fragment_tests,
   };
   c.pass = "isel";
   select_instructions(nir.get(), io, S);
   nir.reset();
   after_pass(c, S, c.pass);
   const Binary bin = run_backend(c, S);
   c.pass = "result";
   return make_result(c, S, bin, io, f);
}

/* Sets and clears current_compilation around one compile. */
struct CurrentCompilation {
   explicit CurrentCompilation(const Compilation &c) { current_compilation = &c; }
   ~CurrentCompilation() { current_compilation = nullptr; }
};

} // namespace

namespace vlgpu {

InternalError::InternalError(const char *f, int l, const std::string &what)
   : std::logic_error(std::string(base_name(f)) + ":" + std::to_string(l) + ": " + what),
     file(base_name(f)), line(l)
{
}

void
internal_error(const char *file, int line, const std::string &what)
{
   InternalError e(file, line, what);
   const Compilation *c = current_compilation;
   if (c && c->opts.abort_on_internal_error)
      abort_with(c->internal(e.what()));
   throw e;
}

} // namespace vlgpu

/* The compile of @nir_in with every exception caught: the C boundary. On
 * failure, @message says why and @internal whether it was a compiler bug
 * (anything but CompileError and bad_alloc). */
static struct vlg_compiled_shader *
compile_guarded(Compilation &c, nir_shader *nir_in, std::string &message, bool &internal)
{
   internal = false;
   try {
      return compile(c, nir_in).release();
   } catch (const CompileError &e) {
      message = c.prefix() + e.what();
      return nullptr;
   } catch (const std::bad_alloc &) {
      message = c.prefix() + "out of memory in pass '" + c.pass + "'";
      return nullptr;
   } catch (const InternalError &e) {
      message = c.internal(e.what());
   } catch (const std::exception &e) {
      message = c.internal(std::string("unexpected exception: ") + e.what());
   } catch (...) {
      message = c.internal("an exception of unknown type");
   }
   internal = true;
   return nullptr;
}

extern "C" struct vlg_compiled_shader *
vlg_compile_nir(struct nir_shader *nir_in, const struct vlg_compile_options *opts, char **error)
{
   static const struct vlg_compile_options defaults = {};
   if (error)
      *error = nullptr;
   if (!nir_in) {
      if (error)
         *error = strdup("vlgpu: vlg_compile_nir: no shader (NULL)");
      return nullptr;
   }
   struct vlg_compiled_shader *cs = nullptr;
   try {
      Compilation c{opts ? *opts : defaults, "", (unsigned)nir_in->info.stage};
      c.name = c.opts.name ? c.opts.name : nir_in->info.name ? nir_in->info.name : "shader";
      /* NIR passes create GLSL types; st/mesa holds a reference already, a
       * standalone caller may not */
      glsl_type_singleton_init_or_ref();
      struct TypesRef {
         ~TypesRef() { glsl_type_singleton_decref(); }
      } types_ref;
      CurrentCompilation current(c);
      std::string message;
      bool internal;
      cs = compile_guarded(c, nir_in, message, internal);
      if (!cs && internal && c.opts.abort_on_internal_error)
         abort_with(message);
      if (!cs && error)
         *error = xstrdup(message);
   } catch (...) {
      /* only std::string allocations outside compile_guarded get here */
      if (error && !*error)
         *error = strdup("vlgpu: out of memory while compiling a shader");
   }
   return cs;
}

extern "C" void
vlg_compiled_shader_free(struct vlg_compiled_shader *cs)
{
   if (!cs)
      return;
   free(cs->code);
   free(cs->consts);
   free(cs->uniform_copies);
   free(cs->disasm);
   free(cs);
}
