/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_glsl.cpp — see vlg_glsl.h. Modelled on Mesa's
 * src/compiler/glsl/standalone.cpp (context set-up, compile, link) and
 * panfrost's bifrost/cmdline.c; the post-link steps follow
 * src/mesa/state_tracker/st_glsl_to_ir.cpp and st_glsl_to_nir.cpp.
 */
#include <algorithm>
#include <map>
#include <regex>

#include "compiler/nir/nir.h"
#include "compiler/nir_types.h"
#include "compiler/glsl/ast.h"
#include "compiler/glsl/glsl_parser_extras.h"
#include "compiler/glsl/ir.h"
#include "compiler/glsl/ir_optimization.h"
#include "compiler/glsl/builtin_functions.h"
#include "compiler/glsl/gl_nir.h"
#include "compiler/glsl/gl_nir_linker.h"
#include "compiler/glsl/glsl_to_nir.h"
#include "compiler/glsl/program.h"
#include "compiler/glsl/standalone_scaffolding.h"
#include "compiler/glsl/string_to_uint_map.h"
#include "main/mtypes.h"

#include "common/read_file.h"
#include "vlg_compiler.h"
#include "vlg_glsl.h"

namespace vlgpu {

namespace {

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
init_context(struct gl_context *ctx, bool desktop, bool core)
{
   initialize_context_to_defaults(ctx, !desktop ? API_OPENGLES2
                                       : core   ? API_OPENGL_CORE
                                                : API_OPENGL_COMPAT);
   _mesa_glsl_builtin_functions_init_or_ref();
   /* ES 3.1 (GLSL ES 3.10: compute shaders, SSBOs, images, atomic
    * counters) with the compute limits the driver advertises
    * (vlg_screen.c); desktop GLSL 1.50 (GL 3.2: geometry shaders) */
   ctx->Version = desktop ? 32 : 31;
   ctx->Const.GLSLVersion = desktop ? 150 : 310;
   ctx->Const.GLSLVersionCompat = desktop ? 130 : 310;
   if (desktop) {
      ctx->Const.MaxClipPlanes = 8;
      ctx->Const.MaxLights = 8;
      ctx->Const.MaxTextureCoordUnits = 8;
      ctx->Const.MaxTextureUnits = 8;
   }
   ctx->Extensions.ARB_ES3_compatibility = true;
   /* on in st/mesa with GLSL 1.30 (st_extensions.c): GLSL ES 3.10 integer
    * built-ins in ESSL 3.00 (findMSB, bitfieldExtract, uaddCarry, ...) */
   ctx->Extensions.MESA_shader_integer_functions = true;
   ctx->Extensions.ARB_shading_language_packing = true;
   ctx->Extensions.ARB_shader_bit_encoding = true;
   /* PIPE_CAP_MAX_TEXTURE_GATHER_COMPONENTS 4: textureGather (TG4) */
   ctx->Extensions.ARB_texture_gather = true;
   ctx->Const.MaxProgramTextureGatherComponents = 4;
   ctx->Const.MinProgramTextureGatherOffset = -8;
   ctx->Const.MaxProgramTextureGatherOffset = 7;
   /* PIPE_CAP_CUBE_MAP_ARRAY: samplerCubeArray(Shadow) (the desktop
    * extension; ES gets OES_texture_cube_map_array only with geometry
    * shaders, st_extensions.c) */
   ctx->Extensions.ARB_texture_cube_map_array = true;
   /* texel buffers (PIPE_CAP_TEXTURE_BUFFER_OBJECTS, the RGB32 formats,
    * image buffers): ES gets OES_texture_buffer (st_extensions.c) */
   ctx->Extensions.ARB_texture_buffer_object = true;
   ctx->Extensions.OES_texture_buffer = true;
   /* EXT/OES_gpu_shader5 on ES (st_extensions.c: ARB_gpu_shader5 is its
    * flag, on with PIPE_CAP_ESSL_FEATURE_LEVEL 320): run-time indices of
    * sampler and uniform block arrays, fma, precise, textureGatherOffsets */
   if (!desktop)
      ctx->Extensions.ARB_gpu_shader5 = true;
   /* PIPE_CAP_INT64: ARB_gpu_shader_int64 (Mesa offers it on core
    * contexts only below GL 4.0, extensions_table.h; vlg_nir_64bit.cpp) */
   if (desktop)
      ctx->Extensions.ARB_gpu_shader_int64 = true;
   /* EXT_blend_func_extended, as PIPE_CAP_MAX_DUAL_SOURCE_RENDER_TARGETS */
   ctx->Extensions.ARB_blend_func_extended = true;
   ctx->Const.MaxDualSourceDrawBuffers = 1;
   if (!desktop)
      ctx->Const.MaxClipPlanes = 0;
   ctx->Const.MaxCombinedTextureImageUnits = 32;
   ctx->Const.MaxDrawBuffers = 4;
   ctx->Const.MinProgramTexelOffset = -8;
   ctx->Const.MaxProgramTexelOffset = 7;
   ctx->Const.MaxUniformBufferBindings = 84;
   ctx->Const.MaxVertexStreams = 4;
   ctx->Const.MaxTransformFeedbackBuffers = 4;
   ctx->Const.MaxTransformFeedbackInterleavedComponents = 64; /* GL 3.2 minimums */
   /* PIPE_CAP_MAX_STREAM_OUTPUT_SEPARATE_COMPONENTS */
   ctx->Const.MaxTransformFeedbackSeparateComponents = 64;
   /* what every stage gets: textures, uniforms, uniform blocks */
   for (gl_shader_stage st :
        {MESA_SHADER_VERTEX, MESA_SHADER_GEOMETRY, MESA_SHADER_FRAGMENT, MESA_SHADER_COMPUTE}) {
      struct gl_program_constants *pc = &ctx->Const.Program[st];
      pc->MaxTextureImageUnits = 16;
      pc->MaxUniformComponents = 1024;
      pc->MaxCombinedUniformComponents = 1024;
      pc->MaxUniformBlocks = 12;
   }
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxAttribs = 16;
   ctx->Const.Program[MESA_SHADER_VERTEX].MaxOutputComponents = 64;
   ctx->Const.Program[MESA_SHADER_FRAGMENT].MaxInputComponents = 64;
   ctx->Const.MaxVarying = 16;
   {
      /* geometry shaders (GL 3.2 minimums; max_vertices up to the
       * hardware's 256, docs/hw.md shader_state.gs_max_vertices) */
      struct gl_program_constants *gs = &ctx->Const.Program[MESA_SHADER_GEOMETRY];
      gs->MaxInputComponents = 64;
      gs->MaxOutputComponents = 128;
      ctx->Const.MaxGeometryOutputVertices = 256;
      ctx->Const.MaxGeometryTotalOutputComponents = 1024;
      /* layout(invocations): shader_state.gs_invocations; ES gets
       * OES/EXT_geometry_shader (PIPE_CAP_ESSL_FEATURE_LEVEL 310) */
      ctx->Const.MaxGeometryShaderInvocations = VLG_HW_MAX_GS_INVOCATIONS;
      ctx->Extensions.OES_geometry_shader = true;
      /* st_extensions.c: with OES_geometry_shader and PIPE_CAP_CUBE_MAP_ARRAY
       * (samplerCubeArray in GLSL ES 3.10), and the bounding box (state
       * only, gl_BoundingBoxOES in no shader stage vlgpu runs) */
      ctx->Extensions.OES_texture_cube_map_array = true;
      ctx->Extensions.OES_primitive_bounding_box = true;
   }
   {
      struct gl_program_constants *cs = &ctx->Const.Program[MESA_SHADER_COMPUTE];
      /* PIPE_SHADER_CAP_MAX_SHADER_BUFFERS 16 without hardware atomic
       * counters: st/mesa gives half of them to atomic counter buffers */
      cs->MaxShaderStorageBlocks = VLG_MAX_SHADER_BUFFERS / 2;
      cs->MaxAtomicBuffers = VLG_MAX_SHADER_BUFFERS / 2;
      cs->MaxAtomicCounters = MAX_ATOMIC_COUNTERS;
      cs->MaxImageUniforms = VLG_MAX_SHADER_IMAGES;
      ctx->Const.MaxCombinedShaderStorageBlocks = VLG_MAX_SHADER_BUFFERS / 2;
      ctx->Const.MaxShaderStorageBufferBindings = VLG_MAX_SHADER_BUFFERS / 2;
      ctx->Const.MaxShaderStorageBlockSize = 1 << 27;
      ctx->Const.MaxAtomicBufferBindings = VLG_MAX_SHADER_BUFFERS / 2;
      ctx->Const.MaxCombinedAtomicBuffers = VLG_MAX_SHADER_BUFFERS / 2;
      ctx->Const.MaxCombinedAtomicCounters = MAX_ATOMIC_COUNTERS;
      ctx->Const.MaxAtomicBufferSize = 1 << 14;
      ctx->Const.MaxImageUnits = MAX_IMAGE_UNITS;
      ctx->Const.MaxCombinedImageUniforms = VLG_MAX_SHADER_IMAGES;
      ctx->Const.MaxComputeWorkGroupInvocations = 1024;
      ctx->Const.MaxComputeSharedMemorySize = 32768;
      for (unsigned i = 0; i < 3; i++) {
         ctx->Const.MaxComputeWorkGroupSize[i] = i < 2 ? 1024 : 64;
         ctx->Const.MaxComputeWorkGroupCount[i] = 65535;
      }
   }
   /* SSBOs, atomic counters and images in vertex, geometry and fragment
    * shaders too, as the driver offers them (vlg_screen.c) */
   for (gl_shader_stage st : {MESA_SHADER_VERTEX, MESA_SHADER_GEOMETRY, MESA_SHADER_FRAGMENT}) {
      struct gl_program_constants *pc = &ctx->Const.Program[st];
      pc->MaxShaderStorageBlocks = VLG_MAX_SHADER_BUFFERS / 2;
      pc->MaxAtomicBuffers = VLG_MAX_SHADER_BUFFERS / 2;
      pc->MaxAtomicCounters = MAX_ATOMIC_COUNTERS;
      pc->MaxImageUniforms = VLG_MAX_SHADER_IMAGES;
   }
   /* st/mesa without PIPE_CAP_NIR_COMPACT_ARRAYS (st_extensions.c):
    * gl_ClipDistance becomes two vec4s, CLIP_DIST0 and CLIP_DIST1 */
   for (unsigned st = 0; st < MESA_SHADER_STAGES; st++)
      ctx->Const.ShaderCompilerOptions[st].LowerCombinedClipCullDistance = true;
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
/* glsl_to_nir plus st_nir_preprocess's variable lowering. */
nir_shader *
front_nir(struct gl_context *ctx, struct gl_shader_program *prog, gl_shader_stage stage,
          const char *name)
{
   const nir_shader_compiler_options *options = vlg_compiler_nir_options(stage);
   nir_shader *nir = glsl_to_nir(&ctx->Const, prog, stage, options);
   nir->info.name = ralloc_strdup(nir, name);
   if (stage == MESA_SHADER_GEOMETRY)
      /* st_nir_preprocess: outputs are temporaries copied to the output
       * variables before each EmitVertex(), inputs copied at the start */
      NIR_PASS_V(nir, nir_lower_io_to_temporaries, nir_shader_get_entrypoint(nir), true, true);
   NIR_PASS_V(nir, nir_lower_global_vars_to_local);
   NIR_PASS_V(nir, nir_split_var_copies);
   NIR_PASS_V(nir, nir_lower_var_copies);
   NIR_PASS_V(nir, nir_lower_system_values);
   NIR_PASS_V(nir, nir_lower_vars_to_ssa);
   return nir;
}

/* What st/mesa does after NIR linking, as far as the backend depends on it
 * (st_glsl_to_nir.cpp: st_nir_assign_vs_in_locations,
 * st_nir_assign_uniform_locations, st_nir_lower_uniforms,
 * st_nir_lower_samplers). */
void
finish_nir(nir_shader *nir, struct gl_shader_program *prog,
           std::map<std::string, int> &varying_slots)
{
   gl_shader_stage stage = nir->info.stage;
   /* Varyings the NIR linker left without a location (separable
    * single-stage programs): a generic slot per name, shared by the stages
    * of one program. */
   nir_variable_mode vmode = stage == MESA_SHADER_VERTEX     ? nir_var_shader_out
                             : stage == MESA_SHADER_GEOMETRY ? nir_var_shader_in | nir_var_shader_out
                                                             : nir_var_shader_in;
   nir_foreach_variable_with_modes (var, nir, vmode) {
      if (var->data.location >= 0 && var->data.location < VARYING_SLOT_MAX)
         continue;
      if (!var->name)
         continue;
      auto it = varying_slots.find(var->name);
      if (it == varying_slots.end()) {
         int next = VARYING_SLOT_VAR0;
         for (auto &v : varying_slots)
            next = std::max(next, v.second + 1);
         it = varying_slots.emplace(var->name, next).first;
         const struct glsl_type *type = var->type;
         if (nir_is_arrayed_io(var, stage)) /* GS inputs: one copy per vertex */
            type = glsl_get_array_element(type);
         unsigned slots = glsl_count_attribute_slots(type, false);
         for (unsigned k = 1; k < slots; k++)
            varying_slots.emplace(std::string(var->name) + "[" + std::to_string(k) + "]", next + k);
      }
      var->data.location = it->second;
   }
   NIR_PASS_V(nir, nir_remove_dead_variables,
              (nir_variable_mode)(nir_var_function_temp | nir_var_shader_temp), nullptr);

   if (stage == MESA_SHADER_VERTEX) {
      /* driver_location = rank of the attribute among those read (st/mesa) */
      nir_shader_gather_info(nir, nir_shader_get_entrypoint(nir));
      nir_foreach_shader_in_variable(var, nir)
      {
         uint64_t below = nir->info.inputs_read & BITFIELD64_MASK(var->data.location);
         var->data.driver_location = util_bitcount64(below);
      }
   } else if (stage == MESA_SHADER_GEOMETRY) {
      /* st_nir_assign_varying_locations (per-vertex arrays count once) */
      nir_assign_io_var_locations(nir, nir_var_shader_in, &nir->num_inputs, stage);
   } else {
      unsigned n;
      nir_assign_var_locations(nir, nir_var_shader_in, &n, type_size_vec4);
   }
   /* atomic counters without hardware counters (PIPE_SHADER_CAP_MAX_HW_
    * ATOMIC_COUNTERS 0): SSBO atomics on the buffers after the shader's
    * SSBOs, as st_glsl_to_nir.cpp does (before uniform locations:
    * atomic_uint variables take no uniform slot) */
   NIR_PASS_V(nir, gl_nir_lower_atomics, prog, true);
   NIR_PASS_V(nir, nir_lower_atomics_to_ssbo, 0u);
   unsigned nout;
   nir_assign_var_locations(nir, nir_var_shader_out, &nout, type_size_vec4);
   nir_assign_var_locations(nir, nir_var_uniform, &nir->num_uniforms, uniform_size_vec4);
   NIR_PASS_V(nir, gl_nir_lower_samplers, prog);
   /* image uniforms: consecutive image slots in declaration order
    * (st_nir_assign_uniform_locations); Gallium image slot i is what
    * st/mesa binds for the program's image i */
   unsigned imageidx = 0;
   nir_foreach_variable_with_modes (var, nir, nir_var_image) {
      var->data.driver_location = imageidx;
      imageidx += glsl_type_is_array(var->type) ? glsl_get_aoa_size(var->type) : 1;
   }
   /* images: image_* on the unit index (st_glsl_to_nir.cpp) */
   NIR_PASS_V(nir, gl_nir_lower_images, false);
   /* uniform blocks: load_ubo(block + 1, byte offset), like st_link_nir;
    * shader storage blocks: load_ssbo(binding, byte offset) */
   NIR_PASS_V(nir, gl_nir_lower_buffers, prog);
   NIR_PASS_V(nir, nir_lower_io, nir_var_uniform, uniform_size_vec4, (nir_lower_io_options)0);
   NIR_PASS_V(nir, nir_opt_constant_folding);
}

} // anonymous namespace

bool
glsl_to_vlgpu_nir(const std::vector<GlslSource> &srcs, std::vector<nir_shader *> &out,
                  std::string &log)
{
   return glsl_to_vlgpu_nir(srcs, out, log, {});
}

bool
glsl_to_vlgpu_nir(const std::vector<GlslSource> &srcs, std::vector<nir_shader *> &out,
                  std::string &log, const std::vector<std::string> &xfb_varyings)
{
   static struct gl_context ctx_storage;
   struct gl_context *ctx = &ctx_storage;
   bool desktop = false, int64 = false;
   for (const GlslSource &s : srcs) {
      std::smatch m;
      if (s.desktop ||
          (std::regex_search(s.text, m, std::regex("^\\s*#\\s*version\\s+([0-9]+)(\\s+es)?")) &&
           !m[2].matched && m[1].str() != "100"))
         desktop = true;
      int64 |= s.text.find("GL_ARB_gpu_shader_int64") != std::string::npos;
   }
   /* the driver's GL 3.2 compatibility context has no int64: a program
    * asking for it gets the core context that has (a compatibility one
    * serves everything else, as Piglit's desktop tests expect) */
   init_context(ctx, desktop, desktop && int64);
   out.clear();
   log.clear();

   struct gl_shader_program *prog = rzalloc(NULL, struct gl_shader_program);
   prog->data = rzalloc(prog, struct gl_shader_program_data);
   prog->data->InfoLog = ralloc_strdup(prog->data, "");
   prog->AttributeBindings = new string_to_uint_map;
   prog->FragDataBindings = new string_to_uint_map;
   prog->FragDataIndexBindings = new string_to_uint_map;
   prog->SeparateShader = srcs.size() == 1;
   if (!xfb_varyings.empty()) {
      prog->TransformFeedback.BufferMode = GL_INTERLEAVED_ATTRIBS;
      prog->TransformFeedback.NumVarying = xfb_varyings.size();
      prog->TransformFeedback.VaryingNames =
         ralloc_array(prog, GLchar *, xfb_varyings.size());
      for (size_t i = 0; i < xfb_varyings.size(); i++)
         prog->TransformFeedback.VaryingNames[i] = ralloc_strdup(prog, xfb_varyings[i].c_str());
   }
   exec_list_make_empty(&prog->EmptyUniformLocations);

   bool good = !srcs.empty();
   for (const GlslSource &s : srcs) {
      prog->Shaders = reralloc(prog, prog->Shaders, struct gl_shader *, prog->NumShaders + 1);
      struct gl_shader *sh = rzalloc(prog, struct gl_shader);
      prog->Shaders[prog->NumShaders++] = sh;
      sh->Type = s.stage == MESA_SHADER_VERTEX     ? GL_VERTEX_SHADER
                 : s.stage == MESA_SHADER_COMPUTE  ? GL_COMPUTE_SHADER
                 : s.stage == MESA_SHADER_GEOMETRY ? GL_GEOMETRY_SHADER
                                                   : GL_FRAGMENT_SHADER;
      sh->Stage = s.stage;
      sh->Source = ralloc_strdup(prog, s.text.c_str());
      _mesa_glsl_compile_shader(ctx, sh, false, false, true);
      if (!sh->CompileStatus) {
         log += s.name + ": GLSL compile error:\n" + sh->InfoLog + "\n";
         good = false;
      }
   }
   if (good) {
      _mesa_clear_shader_program_data(ctx, prog);
      link_shaders(ctx, prog);
      if (!prog->data->LinkStatus) {
         log += srcs[0].name + ": GLSL link error:\n" + prog->data->InfoLog + "\n";
         good = false;
      }
   }
   std::map<std::string, int> varying_slots;
   /* several sources of one stage link into one shader: one NIR per stage,
    * named after its first source */
   std::vector<const GlslSource *> firsts;
   for (const GlslSource &s : srcs) {
      bool seen = false;
      for (const GlslSource *f : firsts)
         seen = seen || f->stage == s.stage;
      if (!seen)
         firsts.push_back(&s);
   }
   if (good) {
      /* The GLSL IR lowering st/mesa does after linking (st_glsl_to_ir.cpp,
       * link_shader); half-float packing stays an op (the driver is to
       * advertise PIPE_CAP_SHADER_PACK_HALF_FLOAT). */
      for (unsigned i = 0; i < MESA_SHADER_STAGES; i++) {
         struct gl_linked_shader *sh = prog->_LinkedShaders[i];
         if (!sh)
            continue;
         if (i == MESA_SHADER_GEOMETRY) {
            /* _mesa_copy_linked_program_data (st_glsl_to_nir.cpp calls it) */
            sh->Program->info.gs.vertices_in = prog->Geom.VerticesIn;
            sh->Program->info.gs.uses_end_primitive = prog->Geom.UsesEndPrimitive;
            sh->Program->info.gs.active_stream_mask = prog->Geom.ActiveStreamMask;
         }
         lower_packing_builtins(sh->ir, true, false, true);
         do_mat_op_to_vec(sh->ir);
         lower_instructions(sh->ir, false, false, false, false, false);
         do_vec_index_to_cond_assign(sh->ir);
         lower_vector_insert(sh->ir, true);
      }
      for (const GlslSource *s : firsts) {
         struct gl_linked_shader *sh = prog->_LinkedShaders[s->stage];
         if (!sh) {
            log += s->name + ": no linked shader for this stage\n";
            good = false;
            continue;
         }
         sh->Program->nir = front_nir(ctx, prog, s->stage, s->name.c_str());
      }
   }
   if (good) {
      /* The NIR half of linking (st_link_nir -> gl_nir_link_glsl): varying
       * locations and uniform storage (sampler units). Parameters are not
       * filled: there is no gl_program parameter list here. */
      if (!gl_nir_link_varyings(&ctx->Const, &ctx->Extensions, ctx->API, prog) ||
          !gl_nir_link_uniforms(&ctx->Const, prog, false)) {
         log += srcs[0].name + ": GLSL link error:\n" + prog->data->InfoLog + "\n";
         good = false;
      }
   }
   if (good) {
      for (const GlslSource *s : firsts) {
         nir_shader *nir = prog->_LinkedShaders[s->stage]->Program->nir;
         finish_nir(nir, prog, varying_slots);
         out.push_back(nir);
         prog->_LinkedShaders[s->stage]->Program->nir = nullptr; /* now the caller's */
      }
   }
   for (unsigned i = 0; i < MESA_SHADER_STAGES; i++)
      if (prog->_LinkedShaders[i]) {
         if (prog->_LinkedShaders[i]->Program) {
            ralloc_free(prog->_LinkedShaders[i]->Program->nir);
            prog->_LinkedShaders[i]->Program->nir = nullptr;
         }
         _mesa_delete_linked_shader(ctx, prog->_LinkedShaders[i]);
      }
   delete prog->AttributeBindings;
   delete prog->FragDataBindings;
   delete prog->FragDataIndexBindings;
   delete prog->UniformHash;
   ralloc_free(prog);
   return good;
}

/* A glmark2 step file of @dir; "" when it cannot be read (the scene is then
 * compiled without that step). */
static std::string
read_step_file(const std::string &dir, const std::string &name)
{
   std::string text;
   read_file(dir + "/" + name, text);
   return text;
}

static void
replace_all(std::string &s, const std::string &from, const std::string &to)
{
   for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
      s.replace(p, from.size(), to);
}

std::string
glmark2_complete(const std::string &dir, const std::string &file_name, const std::string &text)
{
   bool fs = file_name.size() > 5 && file_name.compare(file_name.size() - 5, 5, ".frag") == 0;
   std::string stem = file_name.substr(0, file_name.rfind('.'));
   std::string body = text;

   if (stem == "conditionals") {
      std::string step = read_step_file(dir, "conditionals-step-conditional.all");
      replace_all(body, "$MAIN$", step + step + step);
   } else if (stem == "function") {
      replace_all(body, "$PROCESS$", read_step_file(dir, "function-step-medium.all"));
      std::string call = read_step_file(dir, "function-call.all");
      replace_all(body, "$MAIN$", call + call + call);
   } else if (stem == "loop") {
      std::string step = read_step_file(dir, "loop-step-loop.all");
      replace_all(step, "$NLOOPS$", fs ? "FragmentLoops" : "VertexLoops");
      replace_all(body, "$MAIN$", step);
   }
   if (body.find("$CONVOLUTION$") != std::string::npos) {
      std::smatch ms, mv;
      std::regex_search(body, ms, std::regex("uniform sampler2D (\\w+)"));
      std::regex_search(body, mv, std::regex("varying vec2 (\\w+)"));
      std::string s = ms.size() > 1 ? ms[1].str() : "Texture0";
      std::string v = mv.size() > 1 ? mv[1].str() : "TextureCoord";
      static const float w[3] = {0.25f, 0.5f, 0.25f};
      std::string conv = "result = vec4(0.0);\n";
      for (int y = -1; y <= 1; y++)
         for (int x = -1; x <= 1; x++)
            conv += "    result += texture2D(" + s + ", " + v + " + vec2(" + std::to_string(x) +
                    ".0 * TextureStepX, " + std::to_string(y) + ".0 * TextureStepY)) * " +
                    std::to_string(w[x + 1] * w[y + 1]) + ";\n";
      replace_all(body, "$CONVOLUTION$", conv);
   }
   replace_all(
      body, "$DO_LIGHTS$",
      "    gl_FragColor = compute_color(vec4(0.0, 1.0, 1.0, 1.0), vec4(1.0, 1.0, 1.0, 1.0));\n");

   static const struct {
      const char *name, *decl;
   } consts[] = {
      {"LightSourcePosition", "const vec4 LightSourcePosition = vec4(20.0, 20.0, 10.0, 1.0);\n"},
      {"MaterialDiffuse", "const vec4 MaterialDiffuse = vec4(0.7, 0.7, 0.7, 1.0);\n"},
      {"TextureStepX", "const float TextureStepX = 1.0 / 512.0;\n"},
      {"TextureStepY", "const float TextureStepY = 1.0 / 512.0;\n"},
      {"TextureSize", "const vec2 TextureSize = vec2(512.0, 512.0);\n"},
      {"RefractiveIndex", "const float RefractiveIndex = 1.2;\n"},
      {"LightSourceHalfVector",
       "const vec3 LightSourceHalfVector = vec3(0.408248, 0.408248, 0.816497);\n"},
      {"LightSourceAmbient", "const vec4 LightSourceAmbient = vec4(0.1, 0.1, 0.1, 1.0);\n"},
      {"LightSourceDiffuse", "const vec4 LightSourceDiffuse = vec4(0.8, 0.8, 0.8, 1.0);\n"},
      {"LightSourceSpecular", "const vec4 LightSourceSpecular = vec4(0.8, 0.8, 0.8, 1.0);\n"},
      {"MaterialAmbient", "const vec4 MaterialAmbient = vec4(1.0, 1.0, 1.0, 1.0);\n"},
      {"MaterialSpecular", "const vec4 MaterialSpecular = vec4(0.2, 0.2, 0.2, 1.0);\n"},
      {"MaterialShininess", "const float MaterialShininess = 100.0;\n"},
      {"PI", "const float PI = 3.14159265;\n"},
   };
   std::string pre = "#define HIGHP_OR_DEFAULT highp\n#define MEDIUMP_OR_DEFAULT mediump\n";
   if (stem == "terrain")
      pre += "#define MAX_POINT_LIGHTS 1\n";
   if (fs && body.find("precision ") == std::string::npos)
      pre += "precision highp float;\n"; /* the VS default: uniforms shared by both stages match */
   for (const auto &k : consts) {
      std::regex use(std::string("\\b") + k.name + "\\b");
      std::regex decl(std::string("(float|vec2|vec3|vec4)\\s+") + k.name + "\\b");
      if (std::regex_search(body, use) && !std::regex_search(body, decl))
         pre += k.decl;
   }
   return pre + body;
}

void
glsl_frontend_cleanup()
{
   _mesa_glsl_builtin_functions_decref();
}

} // namespace vlgpu
