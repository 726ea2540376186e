/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * Per-frame and per-draw statistics (VLGPU_STATS, VLGPU_DEBUG=stats):
 * the simulator reports every submit as JSON (vlg_drm_get_stats_json,
 * src/vlgpu/sim/device/device.cpp); this file groups the draws into frames
 * and writes CSV or JSON Lines.  C++ for nlohmann-json (the project's JSON
 * library); the rest of the driver is C.  docs/driver.md "Statistics".
 */

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/log.h"

#include "vlg_hw.h"
#include "vlgpu_drm.h"
#include "vlgpu_stats_keys.h"
#include "vlg_stats.h"
#include "vlg_stats_sums.h"

using json = nlohmann::ordered_json;
namespace K = vlgpu::stats_key;
using vlgpu::driver::Causes;
using vlgpu::driver::ModuleSums;
using vlgpu::driver::Sums;

namespace {

uint64_t
u64(const json &j, const char *a, const char *b = nullptr)
{
   const json *p = &j;
   if (!p->is_object() || !p->contains(a))
      return 0;
   p = &(*p)[a];
   if (b) {
      if (!p->is_object() || !p->contains(b))
         return 0;
      p = &(*p)[b];
   }
   return p->is_number() ? p->get<uint64_t>() : 0;
}

struct Frame : Sums {
   json draw_list = json::array(); /* JSON Lines output only */
   /* a sampled run (VLGPU_SAMPLE): the frame's role and block (stratum) as
    * its submits' "sample" says (frame_sampling.h); "" and -1 otherwise */
   std::string sample_role;
   int64_t sample_block = -1;
};

enum class Format { None, Csv, Jsonl, Dir };

std::string
fmt_double(double v)
{
   char buf[32];
   std::snprintf(buf, sizeof(buf), "%.4f", v);
   return buf;
}

/* One CSV cell: integers in decimal, bools 0/1, fractions with 4 decimals. */
template <typename T>
std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, std::string>
cell(T v)
{
   return std::to_string(v);
}
std::string
cell(bool v)
{
   return v ? "1" : "0";
}
std::string
cell(double v)
{
   return fmt_double(v);
}
std::string
cell(const std::string &v)
{
   return v;
}

/* The driver's own tables, each column listed once for its header and its
 * values (docs/driver.md "Statistics"). X(column, value): the value is an
 * expression of vlg_stats::draw_row. */
#define VLG_DRAW_COLUMNS(X)                                                                        \
   X(frame, frame_number)                                                                          \
   X(draw, draw_no)                                                                                \
   X(submit, submit)                                                                               \
   X(kind, std::string(draw_kind_text(rec)))                                                       \
   X(index_size, rec ? rec->index_size : 0)                                                        \
   X(count, rec ? rec->count : 0)                                                                  \
   X(instances, rec ? rec->instances : 0)                                                          \
   X(vs, rec ? rec->vs_id : 0)                                                                     \
   X(fs, rec ? rec->fs_id : 0)                                                                     \
   X(cycles, cycles)                                                                               \
   X(clear_pixels, u64(c, K::clear_pixels))                                                        \
   X(vertices_shaded, u64(c, K::vs, K::invocations))                                               \
   X(primitives, u64(c, K::ge, K::primitives))                                                     \
   X(prims_culled, u64(c, K::pe, K::prims_culled))                                                 \
   X(fragments, u64(c, K::pe, K::fragments))                                                       \
   X(fragments_passed, u64(c, K::omu, K::fragments_passed))                                        \
   X(fragments_killed, u64(c, K::omu, K::fragments_killed))                                        \
   X(vs_instructions, vs_i)                                                                        \
   X(fs_instructions, fs_i)                                                                        \
   X(vs_dual_issue_rate, vs_i ? double(vs_d) / double(vs_i) : 0.0)                                 \
   X(fs_dual_issue_rate, fs_i ? double(fs_d) / double(fs_i) : 0.0)                                 \
   X(fault, faulted)                                                                               \
   X(bottleneck, limiter)                                                                          \
   X(bottleneck_share, limiter_share)

/* Per frame: X(column, value, in_csv), the value an expression of
 * vlg_stats::write_frame; every column is a key of the JSON Lines object,
 * the CSV has those with in_csv (then per-module and per-cause columns). */
#define VLG_FRAME_COLUMNS(X)                                                                       \
   X(frame, frame_number, true)                                                                    \
   X(submits, cur.submits, true)                                                                   \
   X(draws, cur.draws, true)                                                                       \
   X(clears, cur.clears, true)                                                                     \
   X(cycles, cur.cycles, true)                                                                     \
   X(mode, std::string(cycle_mode ? "cycle" : "functional"), false)                                \
   X(sample, cur.sample_role, true)                                                                \
   X(sample_block, cur.sample_block, true)                                                         \
   X(vertices_shaded, cur.vertices, true)                                                          \
   X(primitives, cur.primitives, true)                                                             \
   X(fragments, cur.fragments, true)                                                               \
   X(fragments_passed, cur.passed, true)                                                           \
   X(vs_instructions, cur.vs_instr, true)                                                          \
   X(fs_instructions, cur.fs_instr, true)                                                          \
   X(dual_issue_rate, cur.dual_issue_rate(), true)                                                 \
   X(faults, cur.faults, true)                                                                     \
   X(l1_hit_rate, cur.l1_hit_rate(), true)                                                         \
   X(l2_hit_rate, cur.l2_hit_rate(), true)                                                         \
   X(mc_bytes, cur.mc_bytes(), true)                                                               \
   X(host_ms, host_ms, true)

/** "a,b,c": the column names of a list, without the null ones. */
std::string
csv_header(std::initializer_list<const char *> names)
{
   std::string h;
   for (const char *n : names)
      if (n)
         h += (h.empty() ? "" : ",") + std::string(n);
   return h;
}

} // namespace

struct vlg_stats {
   std::mutex lock;
   Format format = Format::None;
   bool print = false;
   bool cycle_mode = false;
   FILE *frames = nullptr; /* CSV frames, or JSON Lines */
   FILE *draws = nullptr;  /* CSV draws */
   bool frames_header = false;
   std::vector<std::string> module_columns;
   std::vector<std::string> cause_columns;
   uint64_t frame_number = 0;
   Frame cur;
   Sums total; /* over the device's life (the driver queries) */
   std::map<std::string, std::string> module_class; /* vlg_drm_get_modules_json */
   std::chrono::steady_clock::time_point last_end = std::chrono::steady_clock::now();
   bool parse_error_reported = false;

   void draw_row(const json &d, const vlg_draw_record *rec, uint64_t submit, Sums &sub);
   void add_modules(const json &modules, Sums &sub) const;
   void write_frame();
};

static const char *
draw_kind_text(const vlg_draw_record *rec)
{
   if (!rec)
      return "?";
   if (rec->kind == VLG_DRAW_KIND_CLEAR)
      return "CLEAR";
   if (rec->kind == VLG_DRAW_KIND_RESOLVE)
      return "RESOLVE";
   const char *name = vlg_prim_name(rec->prim);
   return name ? name : "?";
}

/* A submit's modules (the "modules" of its "stats", cycle mode): their
 * cycles, and the counters the driver reads by module class. */
void
vlg_stats::add_modules(const json &modules, Sums &sub) const
{
   if (!modules.is_object())
      return;
   for (const auto &[name, m] : modules.items()) {
      ModuleSums &s = sub.modules[name];
#define VLG_ADD(k) s.k += u64(m, K::k);
      VLG_STATS_MODULE_CYCLE_KEYS(VLG_ADD)
#undef VLG_ADD
      auto cls = module_class.find(name);
      if (cls == module_class.end())
         continue;
#define VLG_ADD(cls_, key_)                                                                        \
   if (cls->second == #cls_)                                                                       \
      sub.cls_##_##key_ += u64(m, K::counters, #key_);
      VLG_STATS_DRIVER_COUNTERS(VLG_ADD)
#undef VLG_ADD
   }
}

void
vlg_stats::draw_row(const json &d, const vlg_draw_record *rec, uint64_t submit, Sums &sub)
{
   const json &c = d.contains(K::counters) ? d[K::counters] : json::object();
   const uint64_t vs_i = u64(c, K::vs, K::instructions), fs_i = u64(c, K::fs, K::instructions);
   const uint64_t vs_d = u64(c, K::vs, K::dual_issued), fs_d = u64(c, K::fs, K::dual_issued);
   const bool clear = rec ? rec->kind == VLG_DRAW_KIND_CLEAR : u64(c, K::clear) != 0;
   const bool faulted = d.contains(K::fault) && !d[K::fault].is_null();
   const uint64_t draw_no = u64(d, K::draw);
   const uint64_t cycles = u64(d, K::cycles);

   sub.draws++;
   sub.clears += clear;
   sub.faults += faulted;
   sub.vertices += u64(c, K::vs, K::invocations);
   sub.primitives += u64(c, K::ge, K::primitives);
   sub.fragments += u64(c, K::pe, K::fragments);
   sub.passed += u64(c, K::omu, K::fragments_passed);
   sub.vs_instr += vs_i;
   sub.fs_instr += fs_i;
   sub.dual += vs_d + fs_d;
   Causes causes; /* the draw's cycles by cause (cycle mode) */
   if (d.contains(K::modules) && d[K::modules].is_object() && d[K::modules].contains(K::bottleneck))
      causes.add(d[K::modules][K::bottleneck]);
   const auto *top = causes.top();
   const std::string limiter = top ? top->first : "";
   const double limiter_share = top ? causes.fraction(top->second) : 0.0;

   if (print) {
      if (clear) {
         std::fprintf(stderr,
                      "vlgpu: frame %" PRIu64 " draw %" PRIu64 ": CLEAR, %" PRIu64
                      " cycles, %" PRIu64 " pixels%s%s%s\n",
                      frame_number, draw_no, cycles, u64(c, K::clear_pixels),
                      faulted ? ", FAULT" : "", top ? "; bottleneck: " : "",
                      top ? causes.text(3).c_str() : "");
      } else {
         std::fprintf(stderr,
                      "vlgpu: frame %" PRIu64 " draw %" PRIu64 ": %s %u%s x%u (VS %u, FS %u): %" PRIu64
                      " cycles, %" PRIu64 " vertices shaded, %" PRIu64 " primitives, %" PRIu64
                      " fragments (%" PRIu64 " passed), %" PRIu64 " VS / %" PRIu64
                      " FS instructions, dual-issue %.3f / %.3f%s%s%s\n",
                      frame_number, draw_no, draw_kind_text(rec), rec ? rec->count : 0,
                      rec && rec->index_size ? " indexed" : "", rec ? rec->instances : 1,
                      rec ? rec->vs_id : 0, rec ? rec->fs_id : 0, cycles,
                      u64(c, K::vs, K::invocations), u64(c, K::ge, K::primitives),
                      u64(c, K::pe, K::fragments), u64(c, K::omu, K::fragments_passed), vs_i, fs_i,
                      vs_i ? double(vs_d) / double(vs_i) : 0.0,
                      fs_i ? double(fs_d) / double(fs_i) : 0.0, faulted ? ", FAULT" : "",
                      top ? "; bottleneck: " : "", top ? causes.text(3).c_str() : "");
      }
   }

   if (format == Format::Csv || format == Format::Dir) {
      std::string row;
#define VLG_CELL(column, value) row += (row.empty() ? "" : ",") + cell(value);
      VLG_DRAW_COLUMNS(VLG_CELL)
#undef VLG_CELL
      std::fprintf(draws, "%s\n", row.c_str());
   } else if (format == Format::Jsonl) {
      json j = d;
      j["submit"] = submit;
      j["kind"] = draw_kind_text(rec);
      if (rec && rec->kind != VLG_DRAW_KIND_CLEAR) {
         j["count"] = rec->count;
         j["index_size"] = rec->index_size;
         j["instances"] = rec->instances;
         j["vs"] = rec->vs_id;
         j["fs"] = rec->fs_id;
      }
      cur.draw_list.push_back(std::move(j));
   }
}

void
vlg_stats::write_frame()
{
   const auto now = std::chrono::steady_clock::now();
   const double host_ms = std::chrono::duration<double, std::milli>(now - last_end).count();
   last_end = now;
   const double dual_rate = cur.dual_issue_rate();

   const auto *top = cur.causes.top();
   if (print) {
      std::string util;
      for (const auto &[name, s] : cur.modules)
         util += " " + name + " " + fmt_double(s.period() ? double(s.busy) / double(s.period()) : 0.0);
      std::fprintf(stderr,
                   "vlgpu: frame %" PRIu64 ": %" PRIu64 " draws (%" PRIu64 " clears), %" PRIu64
                   " submits, %" PRIu64 " cycles%s, %" PRIu64 " vertices, %" PRIu64
                   " primitives, %" PRIu64 " fragments, dual-issue rate %.3f, %" PRIu64
                   " faults, host %.1f ms%s%s%s%s\n",
                   frame_number, cur.draws, cur.clears, cur.submits, cur.cycles,
                   cycle_mode ? "" : " (functional mode: no timing)", cur.vertices,
                   cur.primitives, cur.fragments, dual_rate, cur.faults, host_ms,
                   util.empty() ? "" : "; busy fraction:", util.c_str(),
                   top ? "; bottleneck: " : "", top ? cur.causes.text(4).c_str() : "");
   }

   if (format == Format::Csv || format == Format::Dir) {
      if (!frames_header) {
         for (const auto &m : cur.modules)
            module_columns.push_back(m.first);
         for (const auto &c : cur.causes.cycles)
            cause_columns.push_back(c.first);
#define VLG_NAME(column, value, in_csv) in_csv ? #column : nullptr,
         std::fprintf(frames, "%s", csv_header({VLG_FRAME_COLUMNS(VLG_NAME)}).c_str());
#undef VLG_NAME
         for (const std::string &m : module_columns)
            std::fprintf(frames, ",busy_%s,stalled_%s,starved_%s", m.c_str(), m.c_str(),
                         m.c_str());
         std::fprintf(frames, ",bottleneck,bottleneck_share");
         for (const std::string &c : cause_columns)
            std::fprintf(frames, ",cause_%s", c.c_str());
         std::fprintf(frames, "\n");
         frames_header = true;
      }
      std::string row;
#define VLG_CELL(column, value, in_csv)                                                            \
   if (in_csv)                                                                                     \
      row += (row.empty() ? "" : ",") + cell(value);
      VLG_FRAME_COLUMNS(VLG_CELL)
#undef VLG_CELL
      std::fprintf(frames, "%s", row.c_str());
      for (const std::string &m : module_columns) {
         auto it = cur.modules.find(m);
         ModuleSums s = it == cur.modules.end() ? ModuleSums{} : it->second;
         auto frac = [&](uint64_t v) {
            return fmt_double(s.period() ? double(v) / double(s.period()) : 0.0);
         };
         std::fprintf(frames, ",%s,%s,%s", frac(s.busy).c_str(), frac(s.stalled).c_str(),
                      frac(s.starved).c_str());
      }
      /* the frame's cycles by cause, as fractions of their sum (= cycles) */
      std::fprintf(frames, ",%s,%s", top ? top->first.c_str() : "",
                   fmt_double(top ? cur.causes.fraction(top->second) : 0.0).c_str());
      for (const std::string &c : cause_columns)
         std::fprintf(frames, ",%s", fmt_double(cur.causes.fraction(cur.causes.of(c))).c_str());
      std::fprintf(frames, "\n");
      std::fflush(frames);
      std::fflush(draws);
   } else if (format == Format::Jsonl) {
      json j;
#define VLG_KEY(column, value, in_csv) j[#column] = value;
      VLG_FRAME_COLUMNS(VLG_KEY)
#undef VLG_KEY
      json mods = json::object();
      for (const auto &[name, s] : cur.modules) {
         const double t = s.period() ? double(s.period()) : 1.0;
         mods[name] = {{"ticks", s.ticks},
                       {"busy", double(s.busy) / t},
                       {"stalled", double(s.stalled) / t},
                       {"starved", double(s.starved) / t}};
      }
      j["module_utilisation"] = std::move(mods);
      json causes = json::object();
      for (const auto &[k, v] : cur.causes.cycles)
         causes[k] = v;
      j["bottleneck"] = std::move(causes);
      j["draw_list"] = std::move(cur.draw_list);
      std::fprintf(frames, "%s\n", j.dump().c_str());
      std::fflush(frames);
   }

   frame_number++;
   cur = Frame();
}

extern "C" {

struct vlg_stats *
vlg_stats_create(const char *path, bool print, bool cycle_mode, bool for_queries,
                 const char *modules_json)
{
   if ((!path || !*path) && !print && !for_queries)
      return nullptr;

   auto *s = new vlg_stats();
   s->print = print;
   s->cycle_mode = cycle_mode;
   try {
      for (const json &m : json::parse(modules_json ? modules_json : "[]"))
         s->module_class[m.at("name").get<std::string>()] = m.at("class").get<std::string>();
   } catch (const std::exception &e) {
      /* the device made it: a bug, not bad input */
      mesa_loge("the device's module list is not valid JSON: %s", e.what());
   }
   if (path && *path) {
      std::string p(path);
      auto ends_with = [&](const char *suffix) {
         const std::string x(suffix);
         return p.size() >= x.size() && p.compare(p.size() - x.size(), x.size(), x) == 0;
      };
      std::string frames_path, draws_path;
      if (ends_with(".csv")) {
         s->format = Format::Csv;
         frames_path = p;
         draws_path = p.substr(0, p.size() - 4) + ".draws.csv";
      } else if (ends_with(".jsonl")) {
         s->format = Format::Jsonl;
         frames_path = p;
      } else {
         /* A directory: the device has created it (stats_dir). */
         s->format = Format::Dir;
         frames_path = p + "/frames.csv";
         draws_path = p + "/draws.csv";
      }
      s->frames = std::fopen(frames_path.c_str(), "w");
      if (!draws_path.empty())
         s->draws = std::fopen(draws_path.c_str(), "w");
      if (!s->frames || (!draws_path.empty() && !s->draws)) {
         mesa_loge("VLGPU_STATS=%s: cannot create %s", path,
                   !s->frames ? frames_path.c_str() : draws_path.c_str());
         if (s->frames)
            std::fclose(s->frames);
         if (s->draws)
            std::fclose(s->draws);
         delete s;
         return nullptr;
      }
#define VLG_NAME(column, value) #column,
      if (s->draws)
         std::fprintf(s->draws, "%s\n", csv_header({VLG_DRAW_COLUMNS(VLG_NAME)}).c_str());
#undef VLG_NAME
   }
   return s;
}

void
vlg_stats_destroy(struct vlg_stats *stats)
{
   if (!stats)
      return;
   {
      std::lock_guard<std::mutex> guard(stats->lock);
      if (stats->cur.draws || stats->cur.submits)
         stats->write_frame();
   }
   if (stats->frames)
      std::fclose(stats->frames);
   if (stats->draws)
      std::fclose(stats->draws);
   delete stats;
}

void
vlg_stats_add_submit(struct vlg_stats *stats, const char *text,
                     const struct vlg_draw_record *records, unsigned num_records)
{
   std::lock_guard<std::mutex> guard(stats->lock);
   json j;
   try {
      /* CSV tables use only the draws' counters and module cycles: skip
       * the per-queue statistics (most of the text) and the submit's
       * totals; JSONL keeps every draw's whole report */
      const bool all = stats->format == Format::Jsonl;
      j = json::parse(text, [all](int depth, json::parse_event_t ev, json &parsed) {
         if (all || ev != json::parse_event_t::key)
            return true;
         const std::string &k = parsed.get_ref<const std::string &>();
         return k != K::queues;
      });
   } catch (const std::exception &e) {
      if (!stats->parse_error_reported)
         mesa_loge("statistics of a submit are not valid JSON: %s", e.what());
      stats->parse_error_reported = true;
      return;
   }
   Sums sub;
   sub.submits = 1;
   sub.cycles = u64(j, K::cycles);
   if (j.contains(K::stats) && j[K::stats].is_object()) {
      const json &st = j[K::stats];
      if (st.contains(K::bottleneck))
         sub.causes.add(st[K::bottleneck]);
      if (st.contains(K::modules))
         stats->add_modules(st[K::modules], sub);
   }
   const uint64_t submit = u64(j, K::submit);
   if (j.contains("sample") && j["sample"].is_object()) {
      const json &smp = j["sample"];
      if (smp.contains("role") && smp["role"].is_string())
         stats->cur.sample_role = smp["role"].get<std::string>();
      if (smp.contains("block") && smp["block"].is_number_integer())
         stats->cur.sample_block = smp["block"].get<int64_t>();
   }
   if (j.contains(K::draws) && j[K::draws].is_array()) {
      for (const json &d : j[K::draws]) {
         const uint64_t i = u64(d, K::index_in_queue);
         stats->draw_row(d, i < num_records ? &records[i] : nullptr, submit, sub);
      }
   }
   stats->cur.add(sub);
   stats->total.add(sub);
}

const char *
vlg_stats_submit_json(const struct vlg_stats *stats, struct vlg_drm_device *dev)
{
   return stats->format == Format::Jsonl ? vlg_drm_get_stats_json(dev)
                                         : vlg_drm_get_draw_stats_json(dev);
}

void
vlg_stats_end_frame(struct vlg_stats *stats)
{
   std::lock_guard<std::mutex> guard(stats->lock);
   stats->write_frame();
}

} /* extern "C" */

vlgpu::driver::Sums
vlg_stats_totals(struct vlg_stats *stats)
{
   std::lock_guard<std::mutex> guard(stats->lock);
   return stats->total;
}

