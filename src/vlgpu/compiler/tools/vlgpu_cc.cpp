/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlgpu-cc — compile GLSL ES shaders to VL-IW code from the command line
 * (docs/compiler.md "vlgpu-cc"). Modelled on panfrost's bifrost/cmdline.c:
 * Mesa's GLSL front end (libglsl_standalone: compile, link), glsl_to_nir,
 * then roughly what st/mesa does before the driver sees a shader
 * (locations, samplers, uniforms as vec4 slots), then vlg_compile_nir.
 *
 *   vlgpu-cc [switches] [--stats|--ir|--nir] [--glmark2] [--time N] PATH...
 *       disassembly (or statistics lines) of every shader
 *   vlgpu-cc [switches] --corpus [--out FILE] [--es-only] [--glmark2] [--time N] PATH...
 *       shader-db style: one result line per shader, failures with reasons, totals
 *   vlgpu-cc --compare A.txt B.txt
 *       helped / hurt / unchanged and the change of the totals per metric
 *   vlgpu-cc --report FILE.md [--results-dir DIR] [NAME=PATH[,PATH]]...
 *       every switch over the corpora (default: the glmark2 capture and
 *       Piglit's GLSL ES tests), markdown tables into FILE.md
 *
 * PATH: NAME.vert / NAME.frag (a .vert and a .frag with one NAME are linked
 * as one program, with NAME.geom (or .gs) a geometry shader between them), NAME.comp (a GLSL ES
 * 3.10 compute shader), piglit .shader_test files, directories (searched
 * recursively) or @LIST (a file of paths). Exit status: 0 if every shader
 * compiled (corpus mode: 0 unless a path could not be read), 1 otherwise, 2
 * for bad usage.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>

#include <CLI/CLI.hpp>

#include "compiler/nir/nir.h"

#include "vlg_compiler.h"
#include "vlg_corpus.h"
#include "vlg_glsl.h"

extern char **environ;

using namespace vlgpu;

namespace {

struct Options {
   struct vlg_compile_options copts = {};
   bool stats_only = false;
   bool print_nir = false;
   unsigned time_reps = 0; /* --time N */
   CollectOptions collect;
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
   double us = o.time_reps ? median_compile_us(nir, copts, o.time_reps) : -1;
   if (cs->disasm) {
      fputs(cs->disasm, stdout);
      if (us >= 0)
         printf("; %s: compile time %.1f us (median of %u)\n", name.c_str(), us, o.time_reps);
   } else {
      char *line = vlg_shader_stats_line(name.c_str(), &cs->stats);
      if (us >= 0)
         printf("%s, %.1f us\n", line, us);
      else
         printf("%s\n", line);
      free(line);
   }
   vlg_compiled_shader_free(cs);
   return true;
}

/* Disassembly / --stats mode: compile and print every shader of @progs. */
bool
disassemble(const std::vector<CorpusProgram> &progs, const Options &o)
{
   unsigned ok = 0, total = 0;
   bool good = true;
   for (const CorpusProgram &p : progs) {
      for (const std::string &st : p.unsupported_stages) {
         fprintf(stderr,
                 "%s: %s: stage not supported (vertex, geometry, fragment and compute shaders "
                 "only)\n",
                 p.name.c_str(), st.c_str());
         total++;
         good = false;
      }
      if (p.sources.empty())
         continue;
      std::vector<GlslSource> gs;
      for (const CorpusSource &s : p.sources)
         gs.push_back({s.name, s.stage, s.text, s.desktop});
      for (size_t si = 0; si < gs.size(); si++) /* one shader per stage */
         total += glsl_source_of_stage(gs, gs[si].stage) == si;
      std::vector<nir_shader *> nirs;
      std::string log;
      if (!glsl_to_vlgpu_nir(gs, nirs, log)) {
         fputs(log.c_str(), stderr);
         good = false;
         continue;
      }
      for (unsigned i = 0; i < nirs.size(); i++) {
         if (compile_nir(nirs[i], o, p.sources[glsl_source_of_stage(gs, nirs[i]->info.stage)].name))
            ok++;
         else
            good = false;
         ralloc_free(nirs[i]);
      }
   }
   if (total > 1)
      fprintf(stderr, "vlgpu-cc: %u of %u shaders compiled\n", ok, total);
   return good && ok == total;
}

/* The project root: $VLGPU_ROOT (the launcher sets it) or the source tree
 * this binary was built from. */
std::string
project_root()
{
   const char *r = getenv("VLGPU_ROOT");
   return r && *r ? r : VLG_SOURCE_ROOT;
}

/* Run the glmark2 capture script into @dir (docs/compiler.md). */
bool
capture_glmark2(const std::string &dir)
{
   std::string script = project_root() + "/src/vlgpu/compiler/tools/glmark2_corpus.py";
   fprintf(stderr, "vlgpu-cc: capturing glmark2's programs into %s (%s, a few minutes)\n",
           dir.c_str(), script.c_str());
   std::vector<std::string> args = {"/usr/bin/python3", script, dir};
   std::vector<char *> argv;
   for (std::string &a : args)
      argv.push_back(a.data());
   argv.push_back(nullptr);
   pid_t pid;
   if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      fprintf(stderr, "vlgpu-cc: cannot run %s: %s\n", argv[0], strerror(errno));
      return false;
   }
   int status = 0;
   waitpid(pid, &status, 0);
   return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int
report(const std::string &md, const std::vector<std::string> &specs, const std::string &results_dir,
       bool recapture, const std::string &command)
{
   struct Spec {
      std::string name;
      std::vector<std::string> paths;
      CollectOptions co;
   };
   std::vector<Spec> corpora;
   for (const std::string &s : specs) {
      size_t eq = s.find('=');
      if (eq == std::string::npos || eq == 0) {
         fprintf(stderr, "vlgpu-cc: --report: corpus '%s' is not NAME=PATH[,PATH...]\n", s.c_str());
         return 2;
      }
      Spec sp{s.substr(0, eq), {}, {}};
      sp.co.es_only = true;
      std::string rest = s.substr(eq + 1);
      for (size_t p = 0; p <= rest.size();) {
         size_t c = rest.find(',', p);
         if (c == std::string::npos)
            c = rest.size();
         if (c > p)
            sp.paths.push_back(rest.substr(p, c - p));
         p = c + 1;
      }
      corpora.push_back(sp);
   }
   if (corpora.empty()) {
      std::string cap = project_root() + "/out/compiler-corpus/glmark2";
      if (recapture || !std::filesystem::exists(cap + "/manifest.json"))
         if (!capture_glmark2(cap)) {
            fprintf(stderr, "vlgpu-cc: the glmark2 capture failed\n");
            return 1;
         }
      const std::string piglit = "/usr/lib/x86_64-linux-gnu/piglit";
      CollectOptions es, tests, loose;
      es.es_only = tests.es_only = loose.es_only = true;
      tests.loose_files = false;
      loose.shader_tests = false;
      corpora.push_back({"glmark2", {cap}, es});
      corpora.push_back({"piglit-es", {piglit}, tests});
      corpora.push_back({"piglit-es-compiler", {piglit}, loose});
      /* one probe per GLSL ES 1.00/3.00 feature (docs/compiler.md "Not supported yet") */
      corpora.push_back(
         {"es-features", {project_root() + "/tests/compiler/glsl-es-features"}, tests});
   }
   std::vector<Config> configs = switch_configs();
   std::vector<ReportCorpus> rc;
   for (const Spec &sp : corpora) {
      std::vector<CorpusProgram> progs;
      std::string err;
      if (!collect_programs(sp.paths, sp.co, progs, err)) {
         fputs(err.c_str(), stderr);
         return 1;
      }
      fprintf(stderr, "vlgpu-cc: %s: %zu programs, %zu runs\n", sp.name.c_str(), progs.size(),
              configs.size());
      ReportCorpus c;
      c.name = sp.name;
      for (size_t i = 0; i < sp.paths.size(); i++) {
         std::string p = sp.paths[i];
         std::string root = project_root() + "/";
         if (p.compare(0, root.size(), root) == 0)
            p = p.substr(root.size());
         c.source += (i ? ", " : "") + p;
      }
      c.programs = progs.size();
      run_corpus(progs, configs, c.results, stderr);
      if (!results_dir.empty()) {
         std::filesystem::create_directories(results_dir);
         for (size_t k = 0; k < configs.size(); k++) {
            std::string label = k ? configs[k].label.substr(2) : "all-on";
            std::string path = results_dir + "/" + sp.name + "." + label + ".txt";
            FILE *f = fopen(path.c_str(), "w");
            if (!f) {
               fprintf(stderr, "vlgpu-cc: %s: cannot write: %s\n", path.c_str(), strerror(errno));
               return 1;
            }
            write_results(f, c.results[k], sp.name + ": " + configs[k].label);
            fclose(f);
         }
      }
      rc.push_back(std::move(c));
   }
   std::string err;
   if (!write_report(md, report_markdown(configs, rc, command), err)) {
      fprintf(stderr, "vlgpu-cc: %s\n", err.c_str());
      return 1;
   }
   fprintf(stderr, "vlgpu-cc: report written to %s\n", md.c_str());
   return 0;
}

} // anonymous namespace

int
main(int argc, char **argv)
{
   CLI::App app{"vlgpu-cc: compile GLSL ES shaders (.vert/.geom/.frag/.comp/.shader_test) to VL-IW code; "
                "disassembly, shader-db style corpus runs, comparisons and the optimisation "
                "report (docs/compiler.md)"};
   Options o;
   std::vector<std::string> files;
   bool corpus = false, recapture = false;
   std::string out_path, report_path, results_dir;
   std::vector<std::string> compare;
   for (const Switch &s : compile_switches())
      app.add_flag_callback(
         s.flag, [&o, i = s.index] { vlg_compile_options_set_switch(&o.copts, i, true); }, s.help);
   app.add_flag("--stats", o.stats_only, "print only the statistics line per shader");
   app.add_flag("--ir", o.copts.print_ir, "print the backend IR after every pass");
   app.add_flag("--nir", o.print_nir, "print the NIR handed to the backend");
   app.add_option("--time", o.time_reps,
                  "also measure the compile time: vlg_compile_nir run N more times per shader "
                  "(GLSL front end excluded), the median CPU time of the compiling thread "
                  "appended to the statistics line as ', T us' (T in microseconds, one "
                  "decimal); with disassembly a '; NAME: compile time T us (median of N)' line")
      ->check(CLI::Range(1u, 100000u));
   app.add_flag("--glmark2", o.collect.glmark2,
                "complete glmark2 shader templates as its scenes do (defines, default "
                "precision, scene constants, $PLACEHOLDER$ bodies; vlg_glsl.h)");
   app.add_flag("--corpus", corpus,
                "corpus mode: one shader-db style result line per shader (to --out or stdout), "
                "failures with their reason, totals");
   app.add_option("--out", out_path, "corpus mode: write the result lines to this file");
   app.add_flag("--es-only", o.collect.es_only,
                "keep only GLSL ES shaders (piglit [require] GL ES / GLSL ES, #version 100 / "
                "3x0 es)");
   app.add_option("--compare", compare,
                  "compare two result files A B: helped/hurt/unchanged and totals per metric")
      ->expected(2);
   app.add_option("--report", report_path,
                  "run every optimisation switch over the corpora (positional NAME=PATH[,PATH]; "
                  "default: the glmark2 capture in out/compiler-corpus/glmark2, captured if "
                  "missing, Piglit's GLSL ES .shader_test files and the feature probes in "
                  "tests/compiler/glsl-es-features) and write markdown tables "
                  "into this file (between the vlgpu-cc report markers if it has them)");
   app.add_option("--results-dir", results_dir,
                  "--report: also write every run's result file into this directory");
   app.add_flag("--recapture", recapture, "--report: capture the glmark2 corpus again");
   app.add_option("files", files,
                  "GLSL ES shaders (.vert, .geom, .frag, .comp), piglit .shader_test files, directories, "
                  "@LIST files; with --report: corpora NAME=PATH[,PATH...]");
   CLI11_PARSE(app, argc, argv);

   if (!compare.empty()) {
      Results a, b;
      std::string err;
      if (!read_results(compare[0], a, err) || !read_results(compare[1], b, err)) {
         fprintf(stderr, "vlgpu-cc: %s\n", err.c_str());
         return 1;
      }
      printf("A = %s\nB = %s\n%s", compare[0].c_str(), compare[1].c_str(),
             comparison_text(compare_results(a, b)).c_str());
      return 0;
   }

   if (!report_path.empty()) {
      std::string command;
      if (getenv("VLGPU_ROOT"))
         command = "./vlgpu cc --";
      else
         command = argv[0];
      for (int i = 1; i < argc; i++)
         command += std::string(" ") + argv[i];
      int r = report(report_path, files, results_dir, recapture, command);
      glsl_frontend_cleanup();
      return r;
   }

   if (files.empty()) {
      fprintf(stderr, "vlgpu-cc: no input (PATH..., --compare A B or --report FILE)\n");
      return 2;
   }
   std::vector<CorpusProgram> progs;
   std::string err;
   bool read_ok = collect_programs(files, o.collect, progs, err);
   fputs(err.c_str(), stderr);

   if (corpus) {
      std::vector<Results> res;
      std::vector<Config> cfg(1);
      cfg[0].opts = o.copts;
      cfg[0].opts.print_ir = false;
      run_corpus(progs, cfg, res, nullptr, o.time_reps);
      FILE *f = stdout;
      if (!out_path.empty() && !(f = fopen(out_path.c_str(), "w"))) {
         fprintf(stderr, "vlgpu-cc: %s: cannot write: %s\n", out_path.c_str(), strerror(errno));
         return 1;
      }
      write_results(f, res[0], "vlgpu-cc --corpus: " + switches_text(o.copts));
      if (f != stdout)
         fclose(f);
      for (const ShaderRecord &s : res[0])
         if (s.status == ShaderRecord::Failed)
            fprintf(stderr, "failed: %s: %s\n", s.key().c_str(), s.error.c_str());
      fprintf(stderr, "vlgpu-cc: %s\n", totals_line(totals(res[0])).c_str());
      glsl_frontend_cleanup();
      return read_ok ? 0 : 1;
   }

   bool ok = disassemble(progs, o);
   glsl_frontend_cleanup();
   return ok && read_ok ? 0 : 1;
}
