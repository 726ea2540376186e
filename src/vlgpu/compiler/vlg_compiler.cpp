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
#include <new>

#include "compiler/glsl_types.h"
#include "compiler/nir/nir.h"

#include "vlg_compiler.h"
#include "vlg_passes.h"

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

static const char *const in_sem_names[] = {"ATTRIBUTE",   "VARYING",     "FRAG_COORD", "FACE",
                                           "POINT_COORD", "VERTEX_ID",   "INSTANCE_ID", "POSITION",
                                           "POINT_SIZE",  "PRIMITIVE_ID"};
static const char *const out_sem_names[] = {"POSITION", "VARYING", "POINT_SIZE",
                                            "COLOR",    "DEPTH",   "SAMPLE_MASK"};
static const char *const interp_names[] = {"PERSPECTIVE", "LINEAR", "FLAT", "CONSTANT"};

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
      fprintf(fp, "; gs vertices_in %u, output_prim %s, max_vertices %u, input_stride %u\n",
              cs->gs_vertices_in,
              cs->gs_output_prim == VLG_PRIM_POINTS       ? "POINTS"
              : cs->gs_output_prim == VLG_PRIM_LINE_STRIP ? "LINE_STRIP"
                                                           : "TRIANGLE_STRIP",
              cs->gs_max_vertices, cs->gs_input_stride);
   for (unsigned i = 0; i < cs->num_inputs; i++) {
      const struct VLG_SHADER_INPUT &in = cs->inputs[i];
      fprintf(fp, "; input  R%u.%s%s%s%s <- %s %u%s%s\n", in.reg, in.mask & 1 ? "x" : "",
              in.mask & 2 ? "y" : "", in.mask & 4 ? "z" : "", in.mask & 8 ? "w" : "",
              in.semantic < 10 ? in_sem_names[in.semantic] : "?", in.index,
              cs->stage == MESA_SHADER_FRAGMENT ? " " : "",
              cs->stage == MESA_SHADER_FRAGMENT ? interp_names[in.interp & 3] : "");
   }
   for (unsigned i = 0; i < cs->num_outputs; i++) {
      const struct VLG_SHADER_OUTPUT &o = cs->outputs[i];
      fprintf(fp, "; output R%u.%s%s%s%s -> %s %u\n", o.reg, o.mask & 1 ? "x" : "",
              o.mask & 2 ? "y" : "", o.mask & 4 ? "z" : "", o.mask & 8 ? "w" : "",
              o.semantic < 6 ? out_sem_names[o.semantic] : "?", o.index);
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
   if (vlg_disasm_program(fp, cs->code, cs->code_size, VLG_DISASM_ADDRESS, &err) < 0)
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

extern "C" struct vlg_compiled_shader *
vlg_compile_nir(struct nir_shader *nir_in, const struct vlg_compile_options *opts, char **error)
{
   struct vlg_compile_options defaults = {};
   if (!opts)
      opts = &defaults;
   if (error)
      *error = nullptr;
   std::string name = opts->name ? opts->name : nir_in->info.name ? nir_in->info.name : "shader";
   std::string ir_log;
   struct vlg_compiled_shader *cs = nullptr;
   /* NIR passes create GLSL types; st/mesa holds a reference already, a
    * standalone caller may not */
   glsl_type_singleton_init_or_ref();
   struct TypesRef {
      ~TypesRef() { glsl_type_singleton_decref(); }
   } types_ref;
   nir_shader *nir = nir_shader_clone(nullptr, nir_in);
   nir->options = vlg_compiler_nir_options(nir->info.stage);
   try {
      Shader S;
      S.name = name;
      IoInfo io;
      PipelineOptions po;
      po.nir_opt = !opts->no_nir_opt;
      po.vectorize = !opts->no_vectorize;
      po.reassoc = !opts->no_reassoc;
      nir_prepare(nir, po, io);
      if (opts->print_ir) {
         char *buf = nullptr;
         size_t size = 0;
         FILE *fp = open_memstream(&buf, &size);
         nir_print_shader(nir, fp);
         fclose(fp);
         ir_log += "; ---- NIR after vlg_nir ----\n" + std::string(buf, size);
         free(buf);
      }
      const unsigned wg[3] = {nir->info.workgroup_size[0], nir->info.workgroup_size[1],
                              nir->info.workgroup_size[2]};
      const unsigned gs_vertices_in = nir->info.gs.vertices_in;
      const unsigned gs_out_prim = nir->info.gs.output_primitive;
      const unsigned gs_max_vertices = nir->info.gs.vertices_out;
      const bool early_fragment_tests =
         nir->info.stage == MESA_SHADER_FRAGMENT && nir->info.fs.early_fragment_tests;
      select_instructions(nir, io, S);
      ralloc_free(nir);
      nir = nullptr;
#ifndef NDEBUG
      const bool check = true; /* debug builds validate after every pass */
#else
      const bool check = opts->validate;
#endif
      auto log = [&](const char *pass) {
         if (check)
            validate(S, pass);
         if (opts->print_ir)
            ir_log += std::string("; ---- after ") + pass + " ----\n" + print_shader(S);
      };
      log("isel");
      pack_global_buffer(S, !opts->no_pack);
      log("pack");
      legalize(S);
      log("legalize");
      if (!opts->no_coalesce) {
         coalesce_copies(S);
         log("coalesce");
      }
      schedule(S, !opts->no_sched, !opts->no_dual);
      log("sched");
      register_allocate(S, !opts->no_lowbank, !opts->no_coalesce);
      log("ra");
      Binary bin = emit_program(S);

      cs = (struct vlg_compiled_shader *)calloc(1, sizeof(*cs));
      if (!cs)
         throw std::bad_alloc();
      cs->stage = (gl_shader_stage)S.stage;
      cs->code_size = bin.units.size();
      cs->code = (uint32_t *)malloc(MAX2(1, bin.units.size()) * 4);
      if (!cs->code)
         throw std::bad_alloc();
      memcpy(cs->code, bin.units.data(), bin.units.size() * 4);
      cs->entry = 0;
      cs->num_regs = MAX2(1u, S.num_regs);
      for (const InputDesc &in : S.inputs) {
         if (!in.mask)
            continue;
         struct VLG_SHADER_INPUT &h = cs->inputs[cs->num_inputs];
         VLG_SHADER_INPUT_init(&h);
         h.reg = in.vreg;
         h.mask = in.mask;
         h.interp =
            S.stage == MESA_SHADER_FRAGMENT ? (enum vlg_interp)in.interp : VLG_INTERP_PERSPECTIVE;
         h.semantic = (enum vlg_input_semantic)in.semantic;
         h.index = in.index;
         cs->input_locations[cs->num_inputs] = in.location;
         cs->num_inputs++;
      }
      for (const OutputDesc &o : S.outputs) {
         if (!o.mask)
            continue;
         struct VLG_SHADER_OUTPUT &h = cs->outputs[cs->num_outputs];
         VLG_SHADER_OUTPUT_init(&h);
         h.reg = o.vreg;
         h.mask = o.mask;
         h.semantic = (enum vlg_output_semantic)o.semantic;
         h.index = o.index;
         cs->output_locations[cs->num_outputs] = o.location;
         cs->num_outputs++;
      }
      cs->num_consts = S.consts.size();
      cs->consts = (uint32_t(*)[4])calloc(MAX2(1u, cs->num_consts), 16);
      if (!cs->consts)
         throw std::bad_alloc();
      for (unsigned e = 0; e < cs->num_consts; e++)
         memcpy(cs->consts[e], S.consts[e].data(), 16);
      cs->num_uniform_copies = S.copies.size();
      cs->uniform_copies = (struct vlg_uniform_copy *)calloc(MAX2(1u, cs->num_uniform_copies),
                                                             sizeof(struct vlg_uniform_copy));
      if (!cs->uniform_copies)
         throw std::bad_alloc();
      for (unsigned i = 0; i < S.copies.size(); i++) {
         cs->uniform_copies[i] = {S.copies[i].dst, S.copies[i].src, S.copies[i].count};
         cs->cb0_dwords = MAX2(cs->cb0_dwords, S.copies[i].src + S.copies[i].count);
      }
      cs->driver_uniform_base = io.driver_base;
      if (S.stage == MESA_SHADER_COMPUTE) {
         for (unsigned i = 0; i < 3; i++)
            cs->workgroup_size[i] = wg[i];
         cs->shared_size = (io.shared_size + 3) & ~3u;
      }
      /* SSBOs, atomic counters and images in every stage (docs/compiler.md
       * "Memory in vertex and fragment shaders") */
      cs->ssbos_used = io.ssbos_used;
      cs->images_used = io.images_used;
      for (const Block &blk : S.blocks)
         for (const Instr &I : blk.instrs)
            cs->writes_memory |= !I.dead && I.op == VLG_OP_MEM && !I.shared &&
                                 (I.kind == VLG_MEMKIND_ST || (I.kind >= VLG_MEMKIND_ATOM_ADD &&
                                                               I.kind <= VLG_MEMKIND_ATOM_CMPXCHG));
      cs->early_fragment_tests = early_fragment_tests;
      if (S.stage == MESA_SHADER_GEOMETRY) {
         cs->gs_vertices_in = gs_vertices_in;
         cs->gs_output_prim = gs_out_prim == SHADER_PRIM_POINTS       ? VLG_PRIM_POINTS
                              : gs_out_prim == SHADER_PRIM_LINE_STRIP ? VLG_PRIM_LINE_STRIP
                                                                      : VLG_PRIM_TRIANGLE_STRIP;
         /* max_vertices = 0: isel left out every EMIT/CUT */
         cs->gs_max_vertices = MAX2(1u, gs_max_vertices);
         cs->gs_input_stride = S.gs_input_stride;
         if (gs_max_vertices > 256)
            throw CompileError("geometry shader max_vertices " + std::to_string(gs_max_vertices) +
                               " above 256");
      }
      cs->samplers_used = S.samplers_used;
      cs->buffers_used = S.buffers_used;
      for (unsigned i = 0; i < 32; i++)
         if (S.samplers_used & (1u << i))
            cs->num_samplers = i + 1;
      cs->uses_discard = S.uses_discard;
      cs->writes_depth = S.writes_depth;
      cs->uses_derivatives = S.uses_derivatives;
      cs->color_broadcast = S.color_broadcast;

      struct vlg_shader_stats &st = cs->stats;
      st.instructions = bin.instructions;
      st.ops = bin.ops;
      st.dual = bin.dual;
      st.units = bin.units.size();
      st.bytes = st.units * 4;
      st.registers = cs->num_regs;
      st.gb_entries = cs->num_consts;
      st.cycles = estimate_cycles(S);
      st.tput_cycles = estimate_throughput(S, VLG_STATS_RESIDENT_GROUPS);
      st.max_pressure = S.max_pressure;
      st.dual_rate = st.instructions ? (float)st.dual / st.instructions : 0.0f;

      if (opts->disasm || opts->print_ir)
         cs->disasm = xstrdup(ir_log + disassembly(cs, name.c_str()));
      return cs;
   } catch (const CompileError &e) {
      if (error)
         *error = xstrdup("vlgpu: " + std::string(stage_abbrev(nir_in->info.stage)) + " '" + name +
                          "': " + e.what());
   } catch (const std::bad_alloc &) {
      if (error)
         *error = xstrdup("vlgpu: '" + name + "': out of memory");
   }
   if (nir)
      ralloc_free(nir);
   vlg_compiled_shader_free(cs);
   return nullptr;
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
