/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_corpus.cpp — see vlg_corpus.h. The result format and the comparison
 * follow Mesa's shader-db (run.c prints one statistics line per shader,
 * report.py counts helped/hurt per metric and the change of the totals).
 */
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

#include "compiler/nir/nir.h"

#include "common/read_file.h"
#include "vlg_corpus.h"
#include "vlg_glsl.h"

namespace fs = std::filesystem;

namespace vlgpu {

namespace {

bool
ends_with(const std::string &s, const std::string &suffix)
{
   return s.size() >= suffix.size() &&
          s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool
starts_with(const std::string &s, const std::string &prefix)
{
   return s.compare(0, prefix.size(), prefix) == 0;
}

std::string
trim(const std::string &s)
{
   size_t a = s.find_first_not_of(" \t\r\n");
   if (a == std::string::npos)
      return "";
   size_t b = s.find_last_not_of(" \t\r\n");
   return s.substr(a, b - a + 1);
}

/* The #version line of a shader ("" if none): "100", "300 es", "130", ... */
std::string
version_of(const std::string &text)
{
   std::istringstream in(text);
   std::string line;
   while (std::getline(in, line)) {
      std::string t = trim(line);
      if (t.empty() || starts_with(t, "//"))
         continue;
      if (starts_with(t, "#version")) {
         std::string v = trim(t.substr(8));
         size_t c = v.find("//");
         return trim(c == std::string::npos ? v : v.substr(0, c));
      }
      return "";
   }
   return "";
}

bool
version_is_es(const std::string &v)
{
   return v == "100" || ends_with(v, " es");
}

bool
is_shader_file(const std::string &p)
{
   return ends_with(p, ".vert") || ends_with(p, ".vs") || ends_with(p, ".frag") ||
          ends_with(p, ".fs") || ends_with(p, ".comp") || ends_with(p, ".geom") ||
          ends_with(p, ".gs") || ends_with(p, ".shader_test");
}

/* Collapse a (multi-line) message into one line of at most 400 characters. */
std::string
one_line(const std::string &msg)
{
   std::string out;
   std::istringstream in(msg);
   std::string line;
   while (std::getline(in, line)) {
      line = trim(line);
      if (line.empty())
         continue;
      if (!out.empty())
         out += " | ";
      out += line;
   }
   if (out.size() > 400)
      out = out.substr(0, 397) + "...";
   return out;
}

} // anonymous namespace

void
parse_shader_test(const std::string &name, const std::string &text, CorpusProgram &prog)
{
   std::istringstream in(text);
   std::string line, section, body, glsl_es_version = "100", glsl_desktop_version;
   bool desktop = false;
   prog.name = name;
   auto flush = [&]() {
      /* shader_runner adds the #version the [require] section asks for */
      if (body.find("#version") == std::string::npos && glsl_es_version == "300" && !desktop)
         body = "#version 300 es\n" + body;
      /* desktop: the version [require] names from 1.40 on (shader_runner's
       * required_glsl_version; below it the default 1.10 is what it gets) */
      if (body.find("#version") == std::string::npos && desktop &&
          glsl_desktop_version >= "140" && section != "vertex shader passthrough")
         body = "#version " + glsl_desktop_version + "\n" + body;
      if (section == "vertex shader" || section == "fragment shader" ||
          section == "compute shader" || section == "geometry shader")
         prog.sources.push_back({name + ":[" + section + "]", name,
                                 section == "vertex shader"     ? MESA_SHADER_VERTEX
                                 : section == "fragment shader" ? MESA_SHADER_FRAGMENT
                                 : section == "geometry shader" ? MESA_SHADER_GEOMETRY
                                                                : MESA_SHADER_COMPUTE,
                                 body, desktop});
      else if (section == "vertex shader passthrough")
         prog.sources.push_back(
            {name + ":[vertex shader passthrough]", name, MESA_SHADER_VERTEX,
             glsl_es_version == "300"
                ? "#version 300 es\nin vec4 piglit_vertex;\nvoid main() { gl_Position = "
                  "piglit_vertex; }\n"
             : desktop && glsl_desktop_version >= "140"
                ? "#version " + glsl_desktop_version +
                     "\nin vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n"
                : "attribute vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n",
             desktop});
      else if (section == "tessellation control shader")
         prog.unsupported_stages.push_back("TCS");
      else if (section == "tessellation evaluation shader")
         prog.unsupported_stages.push_back("TES");
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
          (line.find("3.0") != std::string::npos || line.find("3.1") != std::string::npos ||
           line.find("3.2") != std::string::npos))
         glsl_es_version = "300";
      if (section == "require" && line.find("GLSL") != std::string::npos &&
          line.find("GLSL ES") == std::string::npos && line.find("GLSL >=") != std::string::npos) {
         desktop = true;
         std::smatch m;
         if (std::regex_search(line, m, std::regex("GLSL >= ([0-9])\\.([0-9]+)")))
            glsl_desktop_version = m[1].str() + (m[2].str() + "0").substr(0, 2);
      }
      if (section == "vertex shader" || section == "fragment shader" ||
          section == "compute shader" || section == "geometry shader")
         body += line + "\n";
   }
   flush();
}

/* Is @text (a .shader_test) a GLSL ES test? */
static bool
shader_test_is_es(const std::string &text)
{
   std::istringstream in(text);
   std::string line, section;
   bool es = false;
   while (std::getline(in, line)) {
      if (!line.empty() && line[0] == '[') {
         size_t e = line.find(']');
         section = line.substr(1, e == std::string::npos ? std::string::npos : e - 1);
         continue;
      }
      std::string t = trim(line);
      if (section == "require" &&
          (t.find("GL ES") != std::string::npos || t.find("GLSL ES") != std::string::npos) &&
          !starts_with(t, "#"))
         es = true;
      if ((section == "vertex shader" || section == "fragment shader" ||
           section == "compute shader" || section == "geometry shader") &&
          starts_with(t, "#version") && version_is_es(version_of(t)))
         es = true;
   }
   return es;
}

bool
collect_programs(const std::vector<std::string> &paths, const CollectOptions &o,
                 std::vector<CorpusProgram> &out, std::string &err)
{
   bool ok = true;
   /* (path on disk, name in the results) */
   std::vector<std::pair<std::string, std::string>> files;
   std::vector<std::string> todo = paths;
   for (size_t i = 0; i < todo.size(); i++) {
      const std::string &p = todo[i];
      if (starts_with(p, "@")) {
         std::string list, why;
         if (!read_file(p.substr(1), list, &why)) {
            err += p.substr(1) + ": cannot read the list: " + why + "\n";
            ok = false;
            continue;
         }
         std::istringstream in(list);
         std::string l;
         while (std::getline(in, l))
            if (!trim(l).empty() && trim(l)[0] != '#')
               todo.push_back(trim(l));
         continue;
      }
      std::error_code ec;
      if (fs::is_directory(p, ec)) {
         std::vector<std::string> found;
         for (auto it = fs::recursive_directory_iterator(
                 p, fs::directory_options::follow_directory_symlink, ec);
              !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            std::string f = it->path().string();
            if (!it->is_regular_file(ec) || !is_shader_file(f))
               continue;
            if (ends_with(f, ".shader_test") ? o.shader_tests : o.loose_files)
               found.push_back(f);
         }
         if (ec) {
            err += p + ": " + ec.message() + "\n";
            ok = false;
         }
         std::sort(found.begin(), found.end());
         std::string base = fs::path(p).lexically_normal().string();
         if (!base.empty() && base.back() != '/')
            base += '/';
         for (const std::string &f : found) {
            std::string rel = fs::path(f).lexically_normal().string();
            if (starts_with(rel, base))
               rel = rel.substr(base.size());
            files.push_back({f, rel});
         }
      } else if (is_shader_file(p)) {
         files.push_back({p, p});
      } else {
         err += p + ": not a directory and not a shader file (.vert .vs .frag .fs .comp .geom .gs "
                    ".shader_test)\n";
         ok = false;
      }
   }

   /* .vert/.geom/.frag files: group by stem, in order of first appearance */
   std::vector<CorpusSource> loose;
   for (auto &[path, name] : files) {
      std::string text, why;
      if (!read_file(path, text, &why)) {
         err += path + ": cannot read: " + why + "\n";
         ok = false;
         continue;
      }
      if (ends_with(path, ".shader_test")) {
         if (o.es_only && !shader_test_is_es(text))
            continue;
         CorpusProgram prog;
         parse_shader_test(name, text, prog);
         if (!prog.sources.empty() || !prog.unsupported_stages.empty())
            out.push_back(prog);
         continue;
      }
      const gl_shader_stage stage =
         ends_with(path, ".vert") || ends_with(path, ".vs") ? MESA_SHADER_VERTEX
         : ends_with(path, ".comp")                         ? MESA_SHADER_COMPUTE
         : ends_with(path, ".geom") || ends_with(path, ".gs") ? MESA_SHADER_GEOMETRY
                                                            : MESA_SHADER_FRAGMENT;
      if (o.es_only && (!version_is_es(version_of(text)) ||
                        std::regex_search(text, std::regex("expect_result:\\s*fail"))))
         continue;
      if (o.glmark2) {
         std::string dir = fs::path(path).parent_path().string();
         text = glmark2_complete(dir.empty() ? "." : dir, fs::path(path).filename().string(), text);
      }
      loose.push_back({name, name.substr(0, name.rfind('.')), stage, text, false});
   }
   std::vector<bool> used(loose.size(), false);
   for (size_t i = 0; i < loose.size(); i++) {
      if (used[i])
         continue;
      used[i] = true;
      CorpusProgram prog;
      prog.name = loose[i].stem;
      prog.sources.push_back(loose[i]);
      /* one file per stage (.vert, .geom, .frag) */
      for (size_t j = i + 1; j < loose.size(); j++) {
         bool have = false;
         for (const CorpusSource &s : prog.sources)
            have = have || s.stage == loose[j].stage;
         if (!used[j] && loose[j].stem == loose[i].stem && !have) {
            used[j] = true;
            prog.sources.push_back(loose[j]);
         }
      }
      if (prog.sources.size() == 1)
         prog.name = loose[i].name;
      out.push_back(prog);
   }
   return ok;
}

const std::vector<Switch> &
compile_switches()
{
   static const std::vector<Switch> s = [] {
      std::vector<Switch> v;
      for (unsigned i = 0; i < vlg_compile_switch_count(); i++)
         v.push_back(Switch{std::string("--") + vlg_compile_switch_name(i), i,
                            vlg_compile_switch_help(i)});
      return v;
   }();
   return s;
}

std::vector<Config>
switch_configs()
{
   std::vector<Config> c(1);
   c[0].label = "all on";
   for (const Switch &s : compile_switches()) {
      Config k;
      k.label = s.flag;
      vlg_compile_options_set_switch(&k.opts, s.index, true);
      c.push_back(k);
   }
   return c;
}

std::string
switches_text(const vlg_compile_options &o)
{
   std::string s;
   for (const Switch &sw : compile_switches())
      if (vlg_compile_options_switch(&o, sw.index))
         s += std::string(s.empty() ? "" : " ") + sw.flag;
   return s.empty() ? "all optimisations on" : s;
}

static const char *
stage_name(gl_shader_stage s)
{
   return s == MESA_SHADER_VERTEX     ? "VS"
          : s == MESA_SHADER_FRAGMENT ? "FS"
          : s == MESA_SHADER_COMPUTE  ? "CS"
          : s == MESA_SHADER_GEOMETRY ? "GS"
                                      : "?";
}

double
median_compile_us(nir_shader *nir, const vlg_compile_options &opts, unsigned reps)
{
   vlg_compile_options o = opts;
   o.disasm = false;
   o.print_ir = false;
   std::vector<double> t;
   for (unsigned i = 0; i < std::max(reps, 1u); i++) {
      struct timespec a, b;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
      char *err = nullptr;
      vlg_compiled_shader *cs = vlg_compile_nir(nir, &o, &err);
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
      free(err);
      if (!cs)
         return -1;
      vlg_compiled_shader_free(cs);
      t.push_back((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) * 1e-3);
   }
   std::sort(t.begin(), t.end());
   size_t n = t.size();
   return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

void
run_corpus(const std::vector<CorpusProgram> &progs, const std::vector<Config> &configs,
           std::vector<Results> &out, FILE *progress, unsigned time_reps)
{
   out.assign(configs.size(), Results());
   for (size_t pi = 0; pi < progs.size(); pi++) {
      const CorpusProgram &p = progs[pi];
      if (progress && pi % 50 == 0)
         fprintf(progress, "vlgpu-cc: program %zu of %zu: %s\n", pi + 1, progs.size(),
                 p.name.c_str());
      std::vector<ShaderRecord> recs;
      for (const std::string &st : p.unsupported_stages) {
         ShaderRecord r;
         r.name = p.name;
         r.stage = st;
         r.status = ShaderRecord::Failed;
         r.error = "stage not supported (vertex, geometry, fragment and compute shaders only)";
         recs.push_back(r);
      }
      if (!p.sources.empty()) {
         std::vector<GlslSource> gs;
         for (const CorpusSource &s : p.sources)
            gs.push_back({s.name, s.stage, s.text, s.desktop});
         std::vector<nir_shader *> nirs;
         std::string log;
         if (!glsl_to_vlgpu_nir(gs, nirs, log)) {
            /* one record per stage (sources of one stage link into one shader) */
            for (size_t si = 0; si < p.sources.size(); si++) {
               const CorpusSource &s = p.sources[si];
               if (glsl_source_of_stage(gs, s.stage) != si)
                  continue;
               ShaderRecord r;
               r.name = p.name;
               r.stage = stage_name(s.stage);
               r.status = ShaderRecord::GlslError;
               r.error = one_line(log);
               recs.push_back(r);
            }
            for (Results &res : out)
               res.insert(res.end(), recs.begin(), recs.end());
            continue;
         }
         for (size_t k = 0; k < configs.size(); k++) {
            Results &res = out[k];
            res.insert(res.end(), recs.begin(), recs.end());
            for (size_t i = 0; i < nirs.size(); i++) {
               ShaderRecord r;
               r.name = p.name;
               r.stage = stage_name(nirs[i]->info.stage);
               vlg_compile_options o = configs[k].opts;
               std::string nm = r.key();
               o.name = nm.c_str();
               o.disasm = false;
               char *err = nullptr;
               vlg_compiled_shader *cs = vlg_compile_nir(nirs[i], &o, &err);
               if (cs) {
                  r.stats = cs->stats;
                  vlg_compiled_shader_free(cs);
                  if (time_reps)
                     r.time_us = median_compile_us(nirs[i], o, time_reps);
               } else {
                  r.status = ShaderRecord::Failed;
                  r.error = one_line(err ? err : "compilation failed");
               }
               free(err);
               res.push_back(r);
            }
         }
         for (nir_shader *n : nirs)
            ralloc_free(n);
      } else {
         for (Results &res : out)
            res.insert(res.end(), recs.begin(), recs.end());
      }
   }
}

void
write_results(FILE *f, const Results &r, const std::string &header)
{
   if (!header.empty())
      fprintf(f, "# %s\n", header.c_str());
   for (const ShaderRecord &s : r) {
      std::string key = s.key();
      switch (s.status) {
      case ShaderRecord::Ok: {
         char *line = vlg_shader_stats_line(key.c_str(), &s.stats);
         if (s.time_us >= 0)
            fprintf(f, "%s, %.1f us\n", line, s.time_us);
         else
            fprintf(f, "%s\n", line);
         free(line);
         break;
      }
      case ShaderRecord::GlslError:
         fprintf(f, "%s: error[glsl]: %s\n", key.c_str(), s.error.c_str());
         break;
      case ShaderRecord::Failed:
         fprintf(f, "%s: error[vlgpu]: %s\n", key.c_str(), s.error.c_str());
         break;
      }
   }
   fprintf(f, "# %s\n", totals_line(totals(r)).c_str());
}

bool
read_results(const std::string &path, Results &r, std::string &err)
{
   std::ifstream f(path);
   if (!f) {
      err = path + ": cannot read: " + strerror(errno);
      return false;
   }
   std::string line;
   unsigned lineno = 0;
   while (std::getline(f, line)) {
      lineno++;
      if (trim(line).empty() || line[0] == '#')
         continue;
      auto bad = [&](const std::string &what) {
         err = path + ":" + std::to_string(lineno) + ": " + what;
         return false;
      };
      /* NAME - ST: rest; NAME may hold ": " and " - ", the stage is 2-3 capitals */
      size_t sep = std::string::npos;
      for (size_t p = line.find(" - "); p != std::string::npos; p = line.find(" - ", p + 1)) {
         size_t c = line.find(": ", p + 3);
         if (c != std::string::npos && c - (p + 3) >= 2 && c - (p + 3) <= 3) {
            bool caps = true;
            for (size_t q = p + 3; q < c; q++)
               caps = caps && isupper((unsigned char)line[q]);
            if (caps)
               sep = p;
         }
      }
      if (sep == std::string::npos)
         return bad("not a result line (want 'NAME - VS: ...')");
      ShaderRecord s;
      s.name = line.substr(0, sep);
      size_t colon = line.find(": ", sep + 3);
      s.stage = line.substr(sep + 3, colon - sep - 3);
      std::string rest = line.substr(colon + 2);
      if (starts_with(rest, "error[glsl]: ")) {
         s.status = ShaderRecord::GlslError;
         s.error = rest.substr(13);
      } else if (starts_with(rest, "error[vlgpu]: ")) {
         s.status = ShaderRecord::Failed;
         s.error = rest.substr(14);
      } else {
         vlg_shader_stats &st = s.stats;
         float dual = 0;
         double us = -1;
         int n = sscanf(rest.c_str(),
                        "%u instrs, %u ops, %u units, %u bytes, %u regs, %u gb entries, %u cycles, "
                        "%u tput, %f dual, %lf us",
                        &st.instructions, &st.ops, &st.units, &st.bytes, &st.registers,
                        &st.gb_entries, &st.cycles, &st.tput_cycles, &dual, &us);
         if (n == 10)
            s.time_us = us;
         else if (n != 9)
            return bad("malformed statistics (want 'N instrs, N ops, N units, N bytes, N regs, "
                       "N gb entries, N cycles, N tput, X dual')");
         st.dual_rate = dual;
         st.dual = (unsigned)std::lround(dual * st.instructions);
      }
      r.push_back(s);
   }
   return true;
}

Totals
totals(const Results &r)
{
   Totals t;
   for (const ShaderRecord &s : r) {
      t.shaders++;
      if (s.status == ShaderRecord::GlslError) {
         t.glsl_errors++;
         continue;
      }
      if (s.status == ShaderRecord::Failed) {
         t.failed++;
         continue;
      }
      t.compiled++;
      t.sum.instructions += s.stats.instructions;
      t.sum.ops += s.stats.ops;
      t.sum.dual += s.stats.dual;
      t.sum.units += s.stats.units;
      t.sum.bytes += s.stats.bytes;
      t.sum.registers += s.stats.registers;
      t.sum.gb_entries += s.stats.gb_entries;
      t.sum.cycles += s.stats.cycles;
      t.sum.tput_cycles += s.stats.tput_cycles;
      if (s.time_us >= 0) {
         t.timed++;
         t.time_us += s.time_us;
      }
   }
   t.sum.dual_rate = t.sum.instructions ? (float)t.sum.dual / t.sum.instructions : 0;
   return t;
}

std::string
totals_line(const Totals &t)
{
   char buf[512];
   snprintf(buf, sizeof(buf),
            "%u shaders: %u compiled, %u failed in vlgpu, %u rejected by the GLSL front end; "
            "totals: %u instrs, %u ops, %u units, %u bytes, %u regs, %u gb entries, %u cycles, "
            "%u tput, %.3f dual",
            t.shaders, t.compiled, t.failed, t.glsl_errors, t.sum.instructions, t.sum.ops,
            t.sum.units, t.sum.bytes, t.sum.registers, t.sum.gb_entries, t.sum.cycles,
            t.sum.tput_cycles, t.sum.dual_rate);
   std::string s = buf;
   if (t.timed) {
      snprintf(buf, sizeof(buf), "; compile time of %u shaders: %.1f us", t.timed, t.time_us);
      s += buf;
   }
   return s;
}

/* ---------------------------------------------------------------------- */
/* Comparison                                                               */
/* ---------------------------------------------------------------------- */

namespace {

struct MetricDef {
   const char *name;
   bool higher_is_better;
   double (*get)(const vlg_shader_stats &);
};

const MetricDef metric_defs[] = {
   {"instrs", false, [](const vlg_shader_stats &s) { return (double)s.instructions; }},
   {"units", false, [](const vlg_shader_stats &s) { return (double)s.units; }},
   {"bytes", false, [](const vlg_shader_stats &s) { return (double)s.bytes; }},
   {"regs", false, [](const vlg_shader_stats &s) { return (double)s.registers; }},
   {"gb entries", false, [](const vlg_shader_stats &s) { return (double)s.gb_entries; }},
   {"cycles", false, [](const vlg_shader_stats &s) { return (double)s.cycles; }},
   {"tput", false, [](const vlg_shader_stats &s) { return (double)s.tput_cycles; }},
   {"dual rate", true, [](const vlg_shader_stats &s) { return (double)s.dual_rate; }},
};

} // anonymous namespace

Comparison
compare_results(const Results &before, const Results &after)
{
   Comparison c;
   std::map<std::string, const ShaderRecord *> a, b;
   for (const ShaderRecord &s : before)
      a[s.key()] = &s;
   for (const ShaderRecord &s : after)
      b[s.key()] = &s;
   std::vector<std::pair<const ShaderRecord *, const ShaderRecord *>> both;
   for (auto &[k, ra] : a) {
      auto it = b.find(k);
      bool ok_a = ra->status == ShaderRecord::Ok;
      bool ok_b = it != b.end() && it->second->status == ShaderRecord::Ok;
      if (ok_a && ok_b)
         both.push_back({ra, it->second});
      else if (ok_a) {
         c.only_before++;
         c.lost.push_back(k);
      }
   }
   for (auto &[k, rb] : b) {
      auto it = a.find(k);
      if (rb->status == ShaderRecord::Ok &&
          (it == a.end() || it->second->status != ShaderRecord::Ok)) {
         c.only_after++;
         c.gained.push_back(k);
      }
   }
   c.both = both.size();
   for (const MetricDef &m : metric_defs) {
      MetricChange mc;
      mc.metric = m.name;
      mc.higher_is_better = m.higher_is_better;
      double sum_rel = 0;
      unsigned n_rel = 0;
      double ia = 0, ib = 0, da = 0, db = 0;
      for (auto &[ra, rb] : both) {
         double x = m.get(ra->stats), y = m.get(rb->stats);
         double eps = m.higher_is_better ? 1e-4 : 0;
         if (std::fabs(x - y) <= eps)
            mc.unchanged++;
         else if ((y < x) != m.higher_is_better)
            mc.helped++;
         else
            mc.hurt++;
         if (!m.higher_is_better) {
            mc.before += x;
            mc.after += y;
         } else {
            ia += ra->stats.instructions;
            ib += rb->stats.instructions;
            da += ra->stats.dual_rate * ra->stats.instructions;
            db += rb->stats.dual_rate * rb->stats.instructions;
         }
         if (x > 0) {
            sum_rel += (y - x) / x;
            n_rel++;
         }
      }
      if (m.higher_is_better) {
         mc.before = ia ? da / ia : 0;
         mc.after = ib ? db / ib : 0;
      }
      mc.mean_rel = n_rel ? sum_rel / n_rel : 0;
      c.metrics.push_back(mc);
   }
   return c;
}

static std::string
pct(double r)
{
   char buf[32];
   snprintf(buf, sizeof(buf), "%+.2f%%", r * 100);
   return buf;
}

static std::string
num(double v, bool rate)
{
   char buf[32];
   if (rate)
      snprintf(buf, sizeof(buf), "%.3f", v);
   else
      snprintf(buf, sizeof(buf), "%.0f", v);
   return buf;
}

std::string
comparison_text(const Comparison &c)
{
   std::string s;
   char buf[512];
   snprintf(buf, sizeof(buf), "%u shaders compiled in both; %u only in A, %u only in B\n", c.both,
            c.only_before, c.only_after);
   s += buf;
   for (const MetricChange &m : c.metrics) {
      snprintf(buf, sizeof(buf),
               "%-11s helped %5u  hurt %5u  unchanged %5u   total %s -> %s (%s), mean per shader "
               "%s\n",
               m.metric, m.helped, m.hurt, m.unchanged, num(m.before, m.higher_is_better).c_str(),
               num(m.after, m.higher_is_better).c_str(), pct(m.rel()).c_str(),
               pct(m.mean_rel).c_str());
      s += buf;
   }
   auto list = [&](const std::vector<std::string> &v, const char *what) {
      for (size_t i = 0; i < v.size() && i < 20; i++)
         s += std::string(what) + v[i] + "\n";
      if (v.size() > 20)
         s += std::string(what) + "... and " + std::to_string(v.size() - 20) + " more\n";
   };
   list(c.lost, "lost (compiled in A only): ");
   list(c.gained, "gained (compiled in B only): ");
   return s;
}

/* ---------------------------------------------------------------------- */
/* Report                                                                   */
/* ---------------------------------------------------------------------- */

static std::string
machine_line()
{
   char host[256] = "?";
   gethostname(host, sizeof(host) - 1);
   std::string cpu = "?";
   std::ifstream ci("/proc/cpuinfo");
   std::string line;
   while (std::getline(ci, line))
      if (starts_with(line, "model name")) {
         cpu = trim(line.substr(line.find(':') + 1));
         break;
      }
   time_t now = time(nullptr);
   char date[64];
   strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
   return std::string(date) + ", host " + host + " (" + cpu + ", " +
          std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs)";
}

/* The first "error: ..." of a front-end log, with `identifiers' elided
 * (so tests failing for one reason count together). */
static std::string
front_end_reason(const std::string &log)
{
   /* "NAME:[section]: GLSL compile error: | 0:2(12): warning: ... | 0:3(1): error: WHAT | ..." */
   std::string e;
   for (size_t p = 0; p < log.size();) {
      size_t q = log.find(" | ", p);
      std::string piece = log.substr(p, q == std::string::npos ? std::string::npos : q - p);
      size_t k = piece.find("error: ");
      if (k != std::string::npos && piece.find("GLSL compile error") == std::string::npos &&
          piece.find("GLSL link error") == std::string::npos) {
         e = piece.substr(k + 7);
         break;
      }
      if (q == std::string::npos)
         break;
      p = q + 3;
   }
   if (e.empty())
      e = log;
   e = std::regex_replace(e, std::regex("`[^`']*'"), "`…'");
   e = trim(e);
   if (!e.empty() && e.back() == ':')
      e.pop_back();
   return e.empty() ? "(no message)" : e;
}

std::string
report_markdown(const std::vector<Config> &configs, const std::vector<ReportCorpus> &corpora,
                const std::string &command)
{
   std::ostringstream o;
   char buf[1024];
   o << "Generated by `" << command << "` on " << machine_line() << ".\n\n";

   o << "| corpus | source | programs | shaders | rejected by the GLSL front end | compiled | "
        "failed in vlgpu | compiled of those the front end accepts |\n";
   o << "|---|---|---|---|---|---|---|---|\n";
   for (const ReportCorpus &c : corpora) {
      Totals t = totals(c.results[0]);
      unsigned acc = t.shaders - t.glsl_errors;
      snprintf(buf, sizeof(buf), "| %s | `%s` | %u | %u | %u | %u | %u | %u of %u (%.1f%%) |\n",
               c.name.c_str(), c.source.c_str(), c.programs, t.shaders, t.glsl_errors, t.compiled,
               t.failed, t.compiled, acc, acc ? 100.0 * t.compiled / acc : 0.0);
      o << buf;
   }
   o << "\n";
   for (const ReportCorpus &c : corpora) {
      std::map<std::string, std::vector<std::string>> why;
      for (const ShaderRecord &s : c.results[0])
         if (s.status == ShaderRecord::Failed) {
            std::string e = s.error;
            /* "vlgpu: FS 'name': reason" -> reason */
            size_t q = e.find("': ");
            if (starts_with(e, "vlgpu: ") && q != std::string::npos)
               e = e.substr(q + 3);
            why[e].push_back(s.key());
         }
      if (why.empty())
         continue;
      o << "Failures in vlgpu (" << c.name << "):\n\n";
      for (auto &[e, names] : why) {
         o << "- " << e << ": ";
         for (size_t i = 0; i < names.size(); i++)
            o << (i ? ", " : "") << "`" << names[i] << "`";
         o << "\n";
      }
      o << "\n";
   }

   for (const ReportCorpus &c : corpora) {
      /* reason (the front end's first error, identifiers elided) -> programs */
      std::map<std::string, std::set<std::string>> why;
      for (const ShaderRecord &s : c.results[0])
         if (s.status == ShaderRecord::GlslError)
            why[front_end_reason(s.error)].insert(s.name);
      if (why.empty())
         continue;
      std::vector<std::pair<std::string, std::set<std::string>>> v(why.begin(), why.end());
      std::stable_sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
         return a.second.size() > b.second.size();
      });
      o << "Rejected by the GLSL front end (" << c.name
        << "), programs by the front end's first error:\n\n";
      for (auto &[e, names] : v) {
         /* every program when there are few, else the first three */
         const size_t show = names.size() <= 8 ? names.size() : 3;
         o << "- " << names.size() << " × " << e << ": ";
         size_t k = 0;
         for (const std::string &n : names) {
            if (k == show)
               break;
            o << (k++ ? ", " : "") << "`" << n << "`";
         }
         if (show < names.size())
            o << " and " << names.size() - show << " more";
         o << "\n";
      }
      o << "\n";
   }

   o << "Totals with every optimisation on (shaders that compile):\n\n";
   o << "| corpus | shaders | instrs | ops | units | bytes | regs | gb entries | cycles | tput "
        "| dual rate |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
   for (const ReportCorpus &c : corpora) {
      Totals t = totals(c.results[0]);
      snprintf(buf, sizeof(buf), "| %s | %u | %u | %u | %u | %u | %u | %u | %u | %u | %.3f |\n",
               c.name.c_str(), t.compiled, t.sum.instructions, t.sum.ops, t.sum.units, t.sum.bytes,
               t.sum.registers, t.sum.gb_entries, t.sum.cycles, t.sum.tput_cycles, t.sum.dual_rate);
      o << buf;
   }
   o << "\n";

   for (const ReportCorpus &c : corpora) {
      std::vector<Comparison> cmp;
      for (size_t k = 1; k < configs.size(); k++)
         cmp.push_back(compare_results(c.results[k], c.results[0]));
      if (cmp.empty())
         continue;
      /* the header of a table with one column per metric */
      auto metric_header = [&] {
         o << "| switched off |";
         for (const MetricChange &m : cmp[0].metrics)
            o << " " << m.metric << " |";
         o << "\n|---|";
         for (size_t i = 0; i < cmp[0].metrics.size(); i++)
            o << "---|";
         o << "\n";
      };
      o << "Each optimisation on " << c.name
        << ": change of the totals from the switch's run (optimisation off) to the all-on run "
           "(dual rate: difference of the rates), then shaders helped / hurt by the "
           "optimisation:\n\n";
      metric_header();
      for (size_t k = 0; k < cmp.size(); k++) {
         o << "| `" << configs[k + 1].label << "` |";
         for (const MetricChange &m : cmp[k].metrics) {
            if (m.higher_is_better) /* a rate: the difference, not a ratio */
               snprintf(buf, sizeof(buf), " %+.3f (%u/%u) |", m.after - m.before, m.helped, m.hurt);
            else
               snprintf(buf, sizeof(buf), " %s (%u/%u) |", pct(m.rel()).c_str(), m.helped, m.hurt);
            o << buf;
         }
         o << "\n";
      }
      o << "\nMean per-shader change (the seeds' \"average\"), " << c.name << ":\n\n";
      metric_header();
      for (size_t k = 0; k < cmp.size(); k++) {
         o << "| `" << configs[k + 1].label << "` |";
         for (const MetricChange &m : cmp[k].metrics)
            o << " " << pct(m.mean_rel) << " |";
         o << "\n";
      }
      o << "\nTotals per run, " << c.name << ":\n\n";
      o << "| run | compiled | instrs | units | regs | gb entries | cycles | tput | dual rate |\n";
      o << "|---|---|---|---|---|---|---|---|---|\n";
      for (size_t k = 0; k < configs.size(); k++) {
         Totals t = totals(c.results[k]);
         std::string label = k ? "`" + configs[k].label + "`" : configs[k].label;
         snprintf(buf, sizeof(buf), "| %s | %u | %u | %u | %u | %u | %u | %u | %.3f |\n",
                  label.c_str(), t.compiled, t.sum.instructions, t.sum.units, t.sum.registers,
                  t.sum.gb_entries, t.sum.cycles, t.sum.tput_cycles, t.sum.dual_rate);
         o << buf;
      }
      o << "\n";
   }
   return o.str();
}

bool
write_report(const std::string &path, const std::string &section, std::string &err)
{
   static const std::string begin = "<!-- BEGIN vlgpu-cc report -->",
                            end = "<!-- END vlgpu-cc report -->";
   std::string old, text;
   if (read_file(path, old)) {
      size_t b = old.find(begin), e = old.find(end);
      if (b != std::string::npos && e != std::string::npos && e > b)
         text = old.substr(0, b + begin.size()) + "\n" + section + old.substr(e);
   }
   if (text.empty())
      text = section;
   std::ofstream f(path, std::ios::binary | std::ios::trunc);
   if (!f) {
      err = path + ": cannot write: " + strerror(errno);
      return false;
   }
   f << text;
   f.close();
   if (!f) {
      err = path + ": write failed: " + strerror(errno);
      return false;
   }
   return true;
}

} // namespace vlgpu
