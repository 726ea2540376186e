/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlgpu-cc — compile GLSL ES shaders to VL-IW code from the command line and
 * print the disassembly and one statistics line per shader (shader-db
 * style). Modelled on panfrost's bifrost/cmdline.c: Mesa's GLSL front end
 * (libglsl_standalone: compile, link), glsl_to_nir, then roughly what st/mesa
 * does before the driver sees a shader (locations, samplers, uniforms as
 * vec4 slots), then vlg_compile_nir.
 *
 *   vlgpu-cc [options] FILE...
 *     FILE: NAME.vert / NAME.frag (GLSL ES 1.00, or 3.00 with "#version 300 es";
 *     a .vert and a .frag with the same NAME given together are linked as one
 *     program, others are compiled as separable single-stage programs), or a
 *     piglit .shader_test ([vertex shader], [fragment shader] sections).
 *   options: --no-lowbank --no-pack --no-dual --no-sched --no-coalesce
 *     --no-nir-opt (switch one optimisation off), --stats (statistics lines
 *     only), --ir (backend IR after every pass), --nir (NIR from the front end).
 *
 * Exit status: 0 if every shader compiled, 1 otherwise (errors on stderr).
 */
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "compiler/nir/nir.h"
#include "compiler/nir_types.h"
#include "compiler/glsl/ast.h"
#include "compiler/glsl/glsl_parser_extras.h"
#include "compiler/glsl/ir.h"
#include "compiler/glsl/ir_optimization.h"
#include "compiler/glsl/builtin_functions.h"
#include "compiler/glsl/gl_nir.h"
#include "compiler/glsl/glsl_to_nir.h"
#include "compiler/glsl/program.h"
#include "compiler/glsl/standalone_scaffolding.h"
#include "compiler/glsl/string_to_uint_map.h"
#include "main/mtypes.h"

#include "vlg_compiler.h"

namespace {

struct Source {
   std::string name; /* for messages: file[:section] */
   std::string stem; /* pairing key */
   gl_shader_stage stage;
   std::string text;
};

struct Options {
   struct vlg_compile_options copts = {};
   bool stats_only = false;
   bool print_nir = false;
};

struct gl_program *
new_program(struct gl_context *, gl_shader_stage stage, GLuint, bool is_arb_asm)
{
   struct gl_program *prog = rzalloc(NULL, struct gl_program);
   prog->RefCount = 1;
   prog->Format = GL_PROGRAM_FORMAT_ASCII_ARB;
   prog->info.use_legacy_math_rules = is_arb_asm;
   prog->info.stage = stage;
   return prog;
}

/* An ES context with the limits vlgpu's driver advertises (generous enough
 * for glmark2; standalone.cpp's ES 2 minimums reject some of its shaders). */
void
init_context(struct gl_context *ctx)
{
   initialize_context_to_defaults(ctx, API_OPENGLES2);
   _mesa_glsl_builtin_functions_init_or_ref();
   ctx->Version = 30;
   ctx->Const.GLSLVersion = 300;
   ctx->Extensions.ARB_ES3_compatibility = true;
   ctx->Const.MaxClipPlanes = 0;
   ctx->Const.MaxCombinedTextureImageUnits = 32;
   ctx->Const.MaxDrawBuffers = 4;
   ctx->Const.MinProgramTexelOffset = -8;
   ctx->Const.MaxProgramTexelOffset = 7;
   ctx->Const.MaxUniformBufferBindings = 84;
   ctx->Const.MaxVertexStreams = 4;
   ctx->Const.MaxTransformFeedbackBuffers = 4;
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxAttribs = 16;
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxTextureImageUnits = 16;
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxUniformComponents = 1024;
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxCombinedUniformComponents = 1024;
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxOutputComponents = 64;
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxUniformBlocks = 12;
   ctx->Const.Program[MESA_SHADER_FRAGMENT].MaxTextureImageUnits = 16;
   ctx->Const.Program[MESA_SHADER_FRAGMENT].MaxUniformComponents = 1024;
   ctx->Const.Program[MESA_SHADER_FRAGMENT].MaxCombinedUniformComponents = 1024;
   ctx->Const.Program[MESA_SHADER_FRAGMENT].MaxInputComponents = 64;
   ctx->Const.Program[MESA_SHADER_FRAGMENT].MaxUniformBlocks = 12;
   ctx->Const.MaxVarying = 16;
   ctx->Const.GenerateTemporaryNames = true;
   ctx->Const.MaxUserAssignableUniformLocations = 4 * MESA_SHADER_STAGES * MAX_UNIFORMS;
   ctx->Driver.NewProgram = new_program;
}

int
type_size_vec4(const struct glsl_type *type, bool bindless)
{
   return glsl_count_attribute_slots(type, false);
}

int
uniform_size_vec4(const struct glsl_type *type, bool bindless)
{
   return glsl_count_vec4_slots(type, false, bindless);
}

/* What st/mesa does between glsl_to_nir and the driver, as far as the
 * backend depends on it (st_glsl_to_nir.cpp: st_nir_preprocess,
 * st_nir_assign_vs_in_locations, st_nir_assign_uniform_locations,
 * st_nir_lower_uniforms, st_nir_lower_samplers). */
nir_shader *
to_nir(struct gl_context *ctx, struct gl_shader_program *prog, gl_shader_stage stage,
       const char *name, std::map<std::string, int> &varying_slots)
{
   const nir_shader_compiler_options *options = vlg_compiler_nir_options(stage);
   nir_shader *nir = glsl_to_nir(&ctx->Const, prog, stage, options);
   nir->info.name = ralloc_strdup(nir, name);

   /* User varyings: the standalone linker leaves their locations unassigned;
    * give every name a generic slot, shared by the stages of one program
    * (what st/mesa's linking achieves for the driver). */
   nir_variable_mode vmode = stage == MESA_SHADER_VERTEX ? nir_var_shader_out : nir_var_shader_in;
   nir_foreach_variable_with_modes(var, nir, vmode) {
      if ((var->data.location >= 0 && var->data.location < VARYING_SLOT_VAR0) ||
          var->data.explicit_location)
         continue; /* built-in or explicitly placed */
      if (!var->name)
         continue;
      auto it = varying_slots.find(var->name);
      if (it == varying_slots.end()) {
         int next = VARYING_SLOT_VAR0;
         for (auto &v : varying_slots)
            next = std::max(next, v.second + 1);
         it = varying_slots.emplace(var->name, next).first;
         unsigned slots = glsl_count_attribute_slots(var->type, false);
         for (unsigned k = 1; k < slots; k++)
            varying_slots.emplace(std::string(var->name) + "[" + std::to_string(k) + "]", next + k);
      }
      var->data.location = it->second;
   }
   NIR_PASS_V(nir, nir_lower_global_vars_to_local);
   NIR_PASS_V(nir, nir_split_var_copies);
   NIR_PASS_V(nir, nir_lower_var_copies);
   NIR_PASS_V(nir, nir_lower_system_values);
   NIR_PASS_V(nir, nir_lower_vars_to_ssa);
   NIR_PASS_V(nir, nir_remove_dead_variables,
              (nir_variable_mode)(nir_var_function_temp | nir_var_shader_temp), nullptr);

   if (stage == MESA_SHADER_VERTEX) {
      /* driver_location = rank of the attribute among those read (st/mesa) */
      nir_shader_gather_info(nir, nir_shader_get_entrypoint(nir));
      nir_foreach_shader_in_variable(var, nir) {
         uint64_t below = nir->info.inputs_read & BITFIELD64_MASK(var->data.location);
         var->data.driver_location = util_bitcount64(below);
      }
   } else {
      unsigned n;
      nir_assign_var_locations(nir, nir_var_shader_in, &n, type_size_vec4);
   }
   unsigned nout;
   nir_assign_var_locations(nir, nir_var_shader_out, &nout, type_size_vec4);
   nir_assign_var_locations(nir, nir_var_uniform, &nir->num_uniforms, uniform_size_vec4);
   NIR_PASS_V(nir, gl_nir_lower_samplers, prog);
   NIR_PASS_V(nir, nir_lower_io, nir_var_uniform, uniform_size_vec4, (nir_lower_io_options)0);
   NIR_PASS_V(nir, nir_opt_constant_folding);
   return nir;
}

bool
compile_nir(nir_shader *nir, const Options &o, const std::string &name)
{
   if (o.print_nir)
      nir_print_shader(nir, stdout);
   struct vlg_compile_options copts = o.copts;
   copts.name = name.c_str();
   copts.disasm = !o.stats_only;
   char *err = nullptr;
   struct vlg_compiled_shader *cs = vlg_compile_nir(nir, &copts, &err);
   if (!cs) {
      fprintf(stderr, "%s\n", err ? err : "compilation failed");
      free(err);
      return false;
   }
   if (cs->disasm)
      fputs(cs->disasm, stdout);
   else {
      char *line = vlg_shader_stats_line(name.c_str(), &cs->stats);
      printf("%s\n", line);
      free(line);
   }
   vlg_compiled_shader_free(cs);
   return true;
}

/* Compile and link the sources (one or two stages) and compile each stage. */
bool
compile_program(const std::vector<const Source *> &srcs, const Options &o, unsigned &ok,
                unsigned &total)
{
   static struct gl_context ctx_storage;
   struct gl_context *ctx = &ctx_storage;
   init_context(ctx);

   struct gl_shader_program *prog = rzalloc(NULL, struct gl_shader_program);
   prog->data = rzalloc(prog, struct gl_shader_program_data);
   prog->data->InfoLog = ralloc_strdup(prog->data, "");
   prog->AttributeBindings = new string_to_uint_map;
   prog->FragDataBindings = new string_to_uint_map;
   prog->FragDataIndexBindings = new string_to_uint_map;
   prog->SeparateShader = srcs.size() == 1;

   bool good = true;
   total += srcs.size();
   for (const Source *s : srcs) {
      prog->Shaders = reralloc(prog, prog->Shaders, struct gl_shader *, prog->NumShaders + 1);
      struct gl_shader *sh = rzalloc(prog, struct gl_shader);
      prog->Shaders[prog->NumShaders++] = sh;
      sh->Type = s->stage == MESA_SHADER_VERTEX ? GL_VERTEX_SHADER : GL_FRAGMENT_SHADER;
      sh->Stage = s->stage;
      sh->Source = ralloc_strdup(prog, s->text.c_str());
      _mesa_glsl_compile_shader(ctx, sh, false, false, true);
      if (!sh->CompileStatus) {
         fprintf(stderr, "%s: GLSL compile error:\n%s\n", s->name.c_str(), sh->InfoLog);
         good = false;
      }
   }
   if (good) {
      _mesa_clear_shader_program_data(ctx, prog);
      link_shaders(ctx, prog);
      if (!prog->data->LinkStatus) {
         fprintf(stderr, "%s: GLSL link error:\n%s\n", srcs[0]->name.c_str(),
                 prog->data->InfoLog);
         good = false;
      }
   }
   std::map<std::string, int> varying_slots;
   if (good) {
      /* The GLSL IR lowering st/mesa does after linking (st_glsl_to_ir.cpp,
       * link_shader); half-float packing stays an op (vlgpu's driver is to
       * advertise PIPE_CAP_SHADER_PACK_HALF_FLOAT). */
      for (unsigned i = 0; i < MESA_SHADER_STAGES; i++) {
         struct gl_linked_shader *sh = prog->_LinkedShaders[i];
         if (!sh)
            continue;
         lower_packing_builtins(sh->ir, true, false, true);
         do_mat_op_to_vec(sh->ir);
         lower_instructions(sh->ir, false, false, false, false, false);
         do_vec_index_to_cond_assign(sh->ir);
         lower_vector_insert(sh->ir, true);
      }
      for (const Source *s : srcs) {
         if (!prog->_LinkedShaders[s->stage]) {
            fprintf(stderr, "%s: no linked shader\n", s->name.c_str());
            continue;
         }
         nir_shader *nir = to_nir(ctx, prog, s->stage, s->name.c_str(), varying_slots);
         if (compile_nir(nir, o, s->name))
            ok++;
         ralloc_free(nir);
      }
   }
   for (unsigned i = 0; i < MESA_SHADER_STAGES; i++)
      if (prog->_LinkedShaders[i])
         _mesa_delete_linked_shader(ctx, prog->_LinkedShaders[i]);
   delete prog->AttributeBindings;
   delete prog->FragDataBindings;
   delete prog->FragDataIndexBindings;
   delete prog->UniformHash;
   ralloc_free(prog);
   return good;
}

bool
read_file(const std::string &path, std::string &out)
{
   std::ifstream f(path, std::ios::binary);
   if (!f)
      return false;
   std::stringstream ss;
   ss << f.rdbuf();
   out = ss.str();
   return true;
}

bool
ends_with(const std::string &s, const std::string &suffix)
{
   return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/* piglit .shader_test: [vertex shader], [vertex shader passthrough], [fragment shader] */
bool
parse_shader_test(const std::string &path, const std::string &text, std::vector<Source> &out)
{
   std::istringstream in(text);
   std::string line, section, body, glsl_es_version = "100";
   auto flush = [&]() {
      if (section == "vertex shader" || section == "fragment shader")
         out.push_back({path + ":[" + section + "]", path,
                        section == "vertex shader" ? MESA_SHADER_VERTEX : MESA_SHADER_FRAGMENT,
                        body});
      else if (section == "vertex shader passthrough")
         out.push_back({path + ":[vertex shader passthrough]", path, MESA_SHADER_VERTEX,
                        glsl_es_version == "300"
                           ? "#version 300 es\nin vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n"
                           : "attribute vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n"});
      body.clear();
   };
   while (std::getline(in, line)) {
      if (!line.empty() && line[0] == '[') {
         flush();
         size_t e = line.find(']');
         section = line.substr(1, e == std::string::npos ? std::string::npos : e - 1);
         continue;
      }
      if (section == "require" && line.find("GLSL ES") != std::string::npos &&
          line.find("3.00") != std::string::npos)
         glsl_es_version = "300";
      if (section == "vertex shader" || section == "fragment shader")
         body += line + "\n";
   }
   flush();
   return true;
}

} // anonymous namespace

int
main(int argc, char **argv)
{
   CLI::App app{"vlgpu-cc: compile GLSL ES shaders (.vert/.frag/.shader_test) to VL-IW code and "
                "print the disassembly and statistics (docs/compiler.md)"};
   Options o;
   std::vector<std::string> files;
   app.add_flag("--no-lowbank", o.copts.no_lowbank, "no low-bank priority in register allocation");
   app.add_flag("--no-pack", o.copts.no_pack, "no global-buffer packing / constant dedup");
   app.add_flag("--no-dual", o.copts.no_dual, "no dual-phase pairing");
   app.add_flag("--no-sched", o.copts.no_sched, "no list scheduling (isel order)");
   app.add_flag("--no-coalesce", o.copts.no_coalesce, "no copy coalescing");
   app.add_flag("--no-nir-opt", o.copts.no_nir_opt, "no NIR optimisation loop");
   app.add_flag("--stats", o.stats_only, "print only the statistics line per shader");
   app.add_flag("--ir", o.copts.print_ir, "print the backend IR after every pass");
   app.add_flag("--nir", o.print_nir, "print the NIR handed to the backend");
   app.add_option("files", files, "GLSL ES shaders (.vert, .frag) or piglit .shader_test files")
      ->required();
   CLI11_PARSE(app, argc, argv);

   std::vector<Source> sources;
   bool ok_all = true;
   for (const std::string &f : files) {
      std::string text;
      if (!read_file(f, text)) {
         fprintf(stderr, "%s: cannot read\n", f.c_str());
         ok_all = false;
         continue;
      }
      if (ends_with(f, ".shader_test")) {
         parse_shader_test(f, text, sources);
      } else if (ends_with(f, ".vert") || ends_with(f, ".vs")) {
         sources.push_back({f, f.substr(0, f.rfind('.')), MESA_SHADER_VERTEX, text});
      } else if (ends_with(f, ".frag") || ends_with(f, ".fs")) {
         sources.push_back({f, f.substr(0, f.rfind('.')), MESA_SHADER_FRAGMENT, text});
      } else {
         fprintf(stderr, "%s: unknown extension (want .vert, .frag or .shader_test)\n", f.c_str());
         ok_all = false;
      }
   }

   /* Pair a VS and an FS with the same stem; everything else alone. */
   std::vector<bool> used(sources.size(), false);
   unsigned ok = 0, total = 0;
   for (unsigned i = 0; i < sources.size(); i++) {
      if (used[i])
         continue;
      used[i] = true;
      std::vector<const Source *> group = {&sources[i]};
      for (unsigned j = i + 1; j < sources.size(); j++)
         if (!used[j] && sources[j].stem == sources[i].stem &&
             sources[j].stage != sources[i].stage) {
            used[j] = true;
            group.push_back(&sources[j]);
            break;
         }
      if (!compile_program(group, o, ok, total))
         ok_all = false;
   }
   _mesa_glsl_builtin_functions_decref();
   if (total > 1)
      fprintf(stderr, "vlgpu-cc: %u of %u shaders compiled\n", ok, total);
   return ok_all && ok == total ? 0 : 1;
}
