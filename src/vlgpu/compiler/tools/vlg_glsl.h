/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_glsl.h — GLSL ES source to the NIR st/mesa would hand the vlgpu driver,
 * through Mesa's GLSL front end (libglsl_standalone: compile, link, the GLSL
 * IR lowering of st_glsl_to_ir.cpp, glsl_to_nir, the NIR linker for varyings
 * and uniforms, then the location/sampler/uniform steps of
 * st_glsl_to_nir.cpp). For vlgpu-cc and the tests only; the driver gets its
 * NIR from st/mesa.
 */
#pragma once

#include <string>
#include <vector>

#include "compiler/shader_enums.h"

struct nir_shader;

namespace vlgpu {

struct GlslSource {
   std::string name;      /**< for messages and nir->info.name */
   gl_shader_stage stage; /**< MESA_SHADER_VERTEX, _GEOMETRY, _FRAGMENT or _COMPUTE */
   std::string text;      /**< GLSL ES 1.00, or 3.00 with "#version 300 es" */
   /** Desktop GLSL (1.10 .. 1.50; compatibility profile up to 1.40): piglit's desktop
    *  tests, which st/mesa also hands to the driver. Also chosen when the
    *  text starts with a non-ES #version other than 100. */
   bool desktop = false;
};

/**
 * Compile and link @srcs as one program (one source: a separable
 * single-stage program, so its varyings stay). On success returns true and
 * one NIR shader per stage in @out, in the order the stages first appear in
 * @srcs (several sources of one stage are linked into one shader, like
 * piglit's multi-shader tests; glsl_source_of_stage finds the first source
 * of a NIR's stage); the caller frees them with ralloc_free. On failure returns false with the
 * front end's messages in @log. Uniforms are vec4 slots in declaration order (the CLI's stand-in
 * for st/mesa's parameter list); samplers get units from the GLSL linker.
 * Not thread-safe (the front end's built-in function cache is global).
 */
bool glsl_to_vlgpu_nir(const std::vector<GlslSource> &srcs, std::vector<nir_shader *> &out,
                       std::string &log);
/** The same with glTransformFeedbackVaryings(@xfb_varyings, GL_INTERLEAVED_ATTRIBS) before
 *  linking: the named outputs of the last vertex stage stay (piglit's geometry-shader tests
 *  capture their results so, without a fragment shader). */
bool glsl_to_vlgpu_nir(const std::vector<GlslSource> &srcs, std::vector<nir_shader *> &out,
                       std::string &log, const std::vector<std::string> &xfb_varyings);

/** Index in @srcs of the first source of @stage (0 if none). */
inline size_t
glsl_source_of_stage(const std::vector<GlslSource> &srcs, gl_shader_stage stage)
{
   for (size_t i = 0; i < srcs.size(); i++)
      if (srcs[i].stage == stage)
         return i;
   return 0;
}

/**
 * Complete a glmark2 shader template (/usr/share/glmark2/shaders) the way its
 * scenes do at run time, so it can be compiled standalone: the
 * HIGHP_OR_DEFAULT / MEDIUMP_OR_DEFAULT defines and a default float
 * precision (glmark2's ShaderSource), MAX_POINT_LIGHTS for the terrain
 * scene, constants a scene adds when the shader uses them undeclared
 * (light and material parameters, TextureStepX/Y, TextureSize,
 * RefractiveIndex, PI), and the $PLACEHOLDER$ bodies ($MAIN$, $PROCESS$ and
 * $NLOOPS$ from the scene's *.all step files in @dir, $CONVOLUTION$ as a 3x3
 * blur, $DO_LIGHTS$ as one light). Values are representative, not glmark2's
 * exact per-run numbers; the structure of the code is what matters here.
 */
std::string glmark2_complete(const std::string &dir, const std::string &file_name,
                             const std::string &text);

/** Release the front end's built-in functions (call once at exit). */
void glsl_frontend_cleanup();

} // namespace vlgpu
