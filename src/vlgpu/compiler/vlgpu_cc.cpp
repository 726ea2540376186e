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

#include "vlg_compiler.h"
#include "vlg_glsl.h"

using namespace vlgpu;

namespace {

struct Source {
   std::string name; /* for messages: file[:section] */
   std::string stem; /* pairing key */
   gl_shader_stage stage;
   std::string text;
   bool desktop = false; /* desktop GLSL ([require] GLSL >= x without ES) */
};

struct Options {
   struct vlg_compile_options copts = {};
   bool stats_only = false;
   bool print_nir = false;
   bool glmark2 = false;
};

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
   std::vector<GlslSource> gs;
   for (const Source *s : srcs)
      gs.push_back({s->name, s->stage, s->text, s->desktop});
   total += srcs.size();
   std::vector<nir_shader *> nirs;
   std::string log;
   if (!glsl_to_vlgpu_nir(gs, nirs, log)) {
      fputs(log.c_str(), stderr);
      return false;
   }
   bool good = true;
   for (unsigned i = 0; i < nirs.size(); i++) {
      if (compile_nir(nirs[i], o, srcs[i]->name))
         ok++;
      else
         good = false;
      ralloc_free(nirs[i]);
   }
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
   return s.size() >= suffix.size() &&
          s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/* piglit .shader_test: [vertex shader], [vertex shader passthrough], [fragment shader] */
bool
parse_shader_test(const std::string &path, const std::string &text, std::vector<Source> &out)
{
   std::istringstream in(text);
   std::string line, section, body, glsl_es_version = "100";
   bool desktop = false;
   auto flush = [&]() {
      /* shader_runner adds the #version the [require] section asks for */
      if (body.find("#version") == std::string::npos && glsl_es_version == "300" && !desktop)
         body = "#version 300 es\n" + body;
      if (section == "vertex shader" || section == "fragment shader")
         out.push_back({path + ":[" + section + "]", path,
                        section == "vertex shader" ? MESA_SHADER_VERTEX : MESA_SHADER_FRAGMENT,
                        body, desktop});
      else if (section == "vertex shader passthrough")
         out.push_back(
            {path + ":[vertex shader passthrough]", path, MESA_SHADER_VERTEX,
             glsl_es_version == "300"
                ? "#version 300 es\nin vec4 piglit_vertex;\nvoid main() { gl_Position = "
                  "piglit_vertex; }\n"
                : "attribute vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n",
             desktop});
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
      if (section == "require" && line.find("GLSL") != std::string::npos &&
          line.find("GLSL ES") == std::string::npos)
         desktop = true;
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
   app.add_flag("--glmark2", o.glmark2,
                "complete glmark2 shader templates as its scenes do (defines, default "
                "precision, scene constants, $PLACEHOLDER$ bodies; vlg_glsl.h)");
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

   if (o.glmark2)
      for (Source &src : sources) {
         std::string base = src.name.substr(src.name.rfind('/') + 1);
         std::string dir = src.name.rfind('/') == std::string::npos
                              ? "."
                              : src.name.substr(0, src.name.rfind('/'));
         src.text = glmark2_complete(dir, base, src.text);
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
   glsl_frontend_cleanup();
   if (total > 1)
      fprintf(stderr, "vlgpu-cc: %u of %u shaders compiled\n", ok, total);
   return ok_all && ok == total ? 0 : 1;
}
