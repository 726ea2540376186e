/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_corpus.h — shader-db style corpus runs for vlgpu-cc (docs/compiler.md
 * "Corpus mode"): collect GLSL ES programs from files and directories
 * (.vert/.frag pairs, piglit .shader_test files), compile every shader in
 * process with one or more option sets, write and read one result line per
 * shader, compare two result sets like Mesa shader-db's report.py
 * (helped/hurt/unchanged and the change of the totals per metric), and write
 * the markdown report of every optimisation switch. For vlgpu-cc and the
 * tests only.
 */
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "compiler/shader_enums.h"

#include "vlg_compiler.h"

namespace vlgpu {

/** One shader source of a program. */
struct CorpusSource {
   std::string name; /**< for messages: file, or file:[section] */
   std::string stem; /**< pairing key: a .vert, .geom and .frag with one stem are one program */
   gl_shader_stage stage = MESA_SHADER_VERTEX;
   std::string text;
   bool desktop = false; /**< desktop GLSL ([require] GLSL >= x without ES) */
};

/** One program: the shaders linked together, plus stages vlgpu does not
 *  have (tessellation sections of a .shader_test), which are recorded as
 *  failures. */
struct CorpusProgram {
   std::string name; /**< the file (.shader_test) or the stem (.vert/.frag) */
   std::vector<CorpusSource> sources;
   std::vector<std::string> unsupported_stages; /**< "GS", "TCS", "TES", "CS" */
};

struct CollectOptions {
   /** Keep only GLSL ES: a .shader_test whose [require] names GL ES or GLSL
    *  ES or whose shaders start with "#version 100" / "#version 3x0 es"; a
    *  .vert/.frag whose #version is 100 or 3x0 es and that is not a piglit
    *  negative compiler test ("expect_result: fail" in its [config]). */
   bool es_only = false;
   /** Which files a directory search takes: .shader_test files, .vert/.frag/.vs/.fs files. */
   bool shader_tests = true, loose_files = true;
   /** Complete glmark2 templates (glmark2_complete, vlg_glsl.h). */
   bool glmark2 = false;
};

/**
 * Collect programs from @paths: a directory is searched recursively (sorted,
 * symlinks followed) for *.vert, *.vs, *.frag, *.fs, *.shader_test; a file is
 * taken as it is; "@LIST" reads paths from the file LIST (one per line).
 * Names are relative to the directory given (or the path as given for
 * files). A .vert and a .frag with one stem are one program. Returns false
 * with @err set for a path that cannot be read or has an unknown extension
 * (the collected programs stay valid).
 */
bool collect_programs(const std::vector<std::string> &paths, const CollectOptions &o,
                      std::vector<CorpusProgram> &out, std::string &err);

/** Parse a piglit .shader_test (text @text, named @name) into @prog. */
void parse_shader_test(const std::string &name, const std::string &text, CorpusProgram &prog);

/** Result of one shader under one option set. */
struct ShaderRecord {
   enum Status { Ok, GlslError, Failed };
   std::string name;  /**< program name */
   std::string stage; /**< "VS", "FS" (or "GS", ... for unsupported stages) */
   Status status = Ok;
   std::string error; /**< one line; Failed: vlgpu's message; GlslError: the front end's */
   vlg_shader_stats stats = {};
   /** Compile time (run_corpus with time_reps > 0): median over the repetitions of the
    *  host CPU time (CLOCK_THREAD_CPUTIME_ID) of vlg_compile_nir, in microseconds; < 0:
    *  not measured. */
   double time_us = -1;
   std::string key() const { return name + " - " + stage; }
};
using Results = std::vector<ShaderRecord>;

/** One option set of a run ("all on", "--no-dual", ...). */
struct Config {
   std::string label; /**< "all on" or the switch, e.g. "--no-dual" */
   vlg_compile_options opts = {};
};

/** An optimisation switch of vlg_compile_options (vlg_compile_switch_*):
 *  its vlgpu-cc flag, its index and its help text. */
struct Switch {
   std::string flag; /**< "--no-dual" */
   unsigned index;   /**< vlg_compile_options_set_switch() */
   const char *help;
};
const std::vector<Switch> &compile_switches();

/** "all on" followed by one config per switch (the --report runs). */
std::vector<Config> switch_configs();

/** The switches set in @o, space-separated ("all optimisations on" if none). */
std::string switches_text(const vlg_compile_options &o);

/**
 * Compile every program of @progs once through the GLSL front end and then
 * with every option set of @configs; @out[k] holds the records of
 * configs[k] in program order. @progress (may be NULL) gets a line per 50
 * programs.
 */
void run_corpus(const std::vector<CorpusProgram> &progs, const std::vector<Config> &configs,
                std::vector<Results> &out, FILE *progress, unsigned time_reps = 0);

/**
 * Compile time of @nir with @opts: vlg_compile_nir (from its clone of the
 * NIR to the finished binary and statistics; disassembly off) run @reps
 * times (>= 1), each timed with the CPU time of the calling thread
 * (CLOCK_THREAD_CPUTIME_ID, so other processes on a shared host do not
 * count); returns the median in microseconds (the mean of the middle two
 * for an even @reps), or -1 if the shader does not compile. The GLSL front
 * end (GLSL -> NIR) is not included.
 */
double median_compile_us(nir_shader *nir, const vlg_compile_options &opts, unsigned reps);

/** Result lines (shader-db style, one per shader) and a totals comment:
 *    NAME - VS: 17 instrs, 20 ops, 27 units, 108 bytes, 6 regs, 10 gb entries, 38 cycles,
 *    0.176 dual
 *    with a compile time: "..., 0.176 dual, 412.5 us" (ShaderRecord::time_us)
 *    NAME - FS: error[vlgpu]: MESSAGE        (compile failure)
 *    NAME - FS: error[glsl]: MESSAGE         (rejected by Mesa's GLSL front end)
 *  @header (may be empty) is written as a '#' comment first. */
void write_results(FILE *f, const Results &r, const std::string &header);

/** Read a result file written by write_results. Returns false with "FILE:LINE: what" in
 *  @err on a line that is neither a comment, a result nor an error line. */
bool read_results(const std::string &path, Results &r, std::string &err);

/** Totals over the compiled records of @r (dual_rate = dual / instructions). */
struct Totals {
   unsigned shaders = 0, compiled = 0, glsl_errors = 0, failed = 0;
   vlg_shader_stats sum = {};
   unsigned timed = 0; /**< compiled records with a compile time */
   double time_us = 0; /**< sum of their time_us */
};
Totals totals(const Results &r);
/** "N shaders: C compiled, F failed in vlgpu, G rejected by the GLSL front end; totals: ..." */
std::string totals_line(const Totals &t);

/** Per-metric comparison of the shaders compiled in both @before and @after. */
struct MetricChange {
   const char *metric;    /**< "instrs", "units", ... */
   bool higher_is_better; /**< dual rate */
   unsigned helped = 0, hurt = 0, unchanged = 0;
   double before = 0, after = 0; /**< totals (dual: rate of the totals) */
   double mean_rel = 0;          /**< mean over shaders of (after - before) / before, shaders with
                                    before > 0 (the seeds' "average") */
   double rel() const { return before ? (after - before) / before : 0; }
};
struct Comparison {
   unsigned both = 0, only_before = 0, only_after = 0;
   std::vector<std::string> lost, gained; /**< compiled in before only / after only */
   std::vector<MetricChange> metrics;
};
Comparison compare_results(const Results &before, const Results &after);
/** report.py-style text of @c ("before" = A, "after" = B). */
std::string comparison_text(const Comparison &c);

/** One corpus of a report: its name, where it came from, and one result set per config. */
struct ReportCorpus {
   std::string name;
   std::string source; /**< paths, as given */
   unsigned programs = 0;
   std::vector<Results> results; /**< per config, configs[0] = all on */
};

/** Markdown of the report: compile rates and failures per corpus, totals with
 *  everything on, and per switch (off -> on) helped/hurt/total change and
 *  the mean per-shader change per metric. @configs[0] is "all on". */
std::string report_markdown(const std::vector<Config> &configs,
                            const std::vector<ReportCorpus> &corpora, const std::string &command);

/** Write @section into @path between "<!-- BEGIN vlgpu-cc report -->" and
 *  "<!-- END vlgpu-cc report -->" if the file has these markers, else write
 *  the whole file. Returns false with @err if the file cannot be written. */
bool write_report(const std::string &path, const std::string &section, std::string &err);

} // namespace vlgpu
