/*
 * vlgpu simulator core: Config (table, JSON load/save, overrides,
 * validation, documentation).
 */
#include "sim/core/config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/read_file.h"

namespace vlgpu::sim {

using nlohmann::json;
using nlohmann::ordered_json;

const std::vector<Config::KeyInfo> &
Config::keys()
{
   static const std::vector<KeyInfo> table = {
#define VLG_SIM_CONFIG_INFO(ctype, field, key, def, min, max, doc)                                 \
   KeyInfo{key,                                                                                    \
           sizeof(ctype) == 4 ? "uint32" : "uint64",                                               \
           uint64_t(def),                                                                          \
           uint64_t(min),                                                                          \
           uint64_t(max),                                                                          \
           doc,                                                                                    \
           [](const Config &c) -> uint64_t { return c.field; },                                    \
           [](Config &c, uint64_t v) { c.field = ctype(v); }},
      VLG_SIM_CONFIG_KEYS(VLG_SIM_CONFIG_INFO)
#undef VLG_SIM_CONFIG_INFO
   };
   return table;
}

/* Keys that were renamed: still accepted (the config.json of older dumps),
 * with one warning each. watchdog.cycles_per_shader counted residence
 * cycles in cycle mode and instructions in functional mode; its successor
 * counts instructions in both. */
static const struct {
   const char *old_key, *new_key;
} kRenamedKeys[] = {
   {"watchdog.cycles_per_shader", "watchdog.instructions_per_thread_group"},
};

static const Config::KeyInfo *
find_key(std::string_view key)
{
   for (const Config::KeyInfo &k : Config::keys()) {
      if (key == k.key)
         return &k;
   }
   for (const auto &r : kRenamedKeys) {
      if (key == r.old_key) {
         static bool warned[std::size(kRenamedKeys)];
         const size_t i = size_t(&r - kRenamedKeys);
         if (!warned[i])
            fmt::print(stderr, "vlgpu: configuration key '{}' is now '{}' (docs/simulator.md)\n",
                       r.old_key, r.new_key);
         warned[i] = true;
         return find_key(r.new_key);
      }
   }
   return nullptr;
}

static std::vector<std::string>
key_names()
{
   std::vector<std::string> v;
   for (const Config::KeyInfo &k : Config::keys())
      v.emplace_back(k.key);
   return v;
}

/* Fields of queues.<name>: their ranges are those of queues.default.*. */
static const char *const kQueueFields[] = {"capacity", "latency", "bandwidth"};

static const Config::KeyInfo &
queue_field_info(std::string_view field)
{
   return *find_key(fmt::format("queues.default.{}", field));
}

static std::optional<uint32_t> QueueOverride::*
queue_field_member(std::string_view field)
{
   if (field == "capacity")
      return &QueueOverride::capacity;
   if (field == "latency")
      return &QueueOverride::latency;
   return &QueueOverride::bandwidth;
}

[[noreturn]] static void
unknown_key(std::string_view origin, std::string_view key)
{
   std::vector<std::string> names = key_names();
   names.emplace_back("queues");
   throw ConfigError(fmt::format("{}: unknown key '{}'{}", origin, key, did_you_mean(key, names)));
}

static void
check_range(std::string_view origin, const char *key, uint64_t v, uint64_t min, uint64_t max)
{
   if (v < min || v > max)
      throw ConfigError(
         fmt::format("{}: key '{}': value {} out of range [{}, {}]", origin, key, v, min, max));
}

/* Resolve "queues.<name>.<field>" (name != "default"). Returns false when the
 * key is not of that form. */
static bool
split_queue_key(std::string_view origin, std::string_view key, std::string *name,
                std::string_view *field)
{
   constexpr std::string_view prefix = "queues.";
   if (key.substr(0, prefix.size()) != prefix)
      return false;
   std::string_view rest = key.substr(prefix.size());
   size_t dot = rest.rfind('.');
   if (dot == std::string_view::npos || dot == 0)
      unknown_key(origin, key);
   *name = std::string(rest.substr(0, dot));
   *field = rest.substr(dot + 1);
   /* Queue and port names ("gpc0.spc1.in", "cp.out_draw->gts.in_draw") are
    * printable ASCII; anything else could not be written back as JSON
    * (to_json: a dump's config.json) and names no queue. */
   for (char ch : *name) {
      if (ch < '!' || ch > '~') {
         throw ConfigError(fmt::format("{}: key '{}': a queue name is printable ASCII "
                                       "(a queue's or port's name), byte 0x{:02x} is not",
                                       origin, key, (unsigned)(unsigned char)ch));
      }
   }
   if (std::find(std::begin(kQueueFields), std::end(kQueueFields), *field) ==
       std::end(kQueueFields)) {
      std::vector<std::string> alts;
      for (const char *f : kQueueFields)
         alts.push_back(fmt::format("queues.{}.{}", *name, f));
      throw ConfigError(
         fmt::format("{}: unknown key '{}'{}", origin, key, did_you_mean(key, alts)));
   }
   return true;
}

static uint64_t
json_uint(std::string_view origin, std::string_view key, const char *type, const json &v,
          uint64_t min, uint64_t max)
{
   if (v.is_number_unsigned()) {
      uint64_t x = v.get<uint64_t>();
      check_range(origin, std::string(key).c_str(), x, min, max);
      return x;
   }
   if (v.is_number_integer()) {
      throw ConfigError(fmt::format("{}: key '{}': value {} out of range [{}, {}]", origin, key,
                                    v.dump(), min, max));
   }
   std::string shown = v.dump();
   if (shown.size() > 40)
      shown = shown.substr(0, 37) + "...";
   throw ConfigError(
      fmt::format("{}: key '{}': expected an unsigned integer ({}), got {} {}", origin, key, type,
                  v.is_number_float() ? "a floating-point number" : v.type_name(), shown));
}

void
Config::merge_json(const json &j, std::string_view origin)
{
   /* Work on a copy: an error leaves *this unchanged. */
   Config c = *this;
   if (!j.is_object()) {
      throw ConfigError(
         fmt::format("{}: the configuration must be a JSON object, got {}", origin, j.type_name()));
   }
   /* Walk nested objects; a dotted path is either a table key, a section
    * (a prefix of table keys), the queues section, or unknown. Flat dotted
    * member names ("l2.size_bytes": ...) are accepted as well. */
   std::function<void(const json &, const std::string &)> walk = [&](const json &obj,
                                                                     const std::string &prefix) {
      for (auto it = obj.begin(); it != obj.end(); ++it) {
         const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
         const json &v = it.value();
         if (const KeyInfo *k = find_key(path)) {
            k->set(c, json_uint(origin, path, k->type, v, k->min, k->max));
            continue;
         }
         if (path == "queues") {
            if (!v.is_object()) {
               throw ConfigError(fmt::format("{}: key 'queues': expected an object, got {}", origin,
                                             v.type_name()));
            }
            for (auto q = v.begin(); q != v.end(); ++q) {
               const std::string qpath = "queues." + q.key();
               if (!q.value().is_object()) {
                  throw ConfigError(fmt::format("{}: key '{}': expected an object with "
                                                "capacity/latency/bandwidth, got {}",
                                                origin, qpath, q.value().type_name()));
               }
               if (q.key() == "default") {
                  walk(q.value(), qpath);
                  continue;
               }
               for (auto f = q.value().begin(); f != q.value().end(); ++f) {
                  std::string qname;
                  std::string_view field;
                  const std::string fkey = qpath + "." + f.key();
                  split_queue_key(origin, fkey, &qname, &field);
                  const KeyInfo &info = queue_field_info(field);
                  c.queues[qname].*queue_field_member(field) =
                     uint32_t(json_uint(origin, fkey, info.type, f.value(), info.min, info.max));
               }
            }
            continue;
         }
         bool section = false;
         for (const KeyInfo &k : keys()) {
            if (std::string_view(k.key).rfind(path + ".", 0) == 0)
               section = true;
         }
         if (!section)
            unknown_key(origin, path);
         if (!v.is_object()) {
            throw ConfigError(fmt::format("{}: key '{}': expected an object (a section of keys "
                                          "'{}.*'), got {}",
                                          origin, path, path, v.type_name()));
         }
         walk(v, path);
      }
   };
   walk(j, "");
   *this = std::move(c);
}

void
Config::merge_json_text(std::string_view text, std::string_view origin)
{
   json j;
   try {
      j = json::parse(text.begin(), text.end(), nullptr, true, /* ignore_comments */ true);
   } catch (const json::parse_error &e) {
      /* e.byte: 1-based index of the byte at which parsing failed. */
      size_t byte = e.byte ? e.byte - 1 : 0;
      if (byte > text.size())
         byte = text.size();
      unsigned line = 1, col = 1;
      for (size_t i = 0; i < byte; i++) {
         if (text[i] == '\n') {
            line++;
            col = 1;
         } else {
            col++;
         }
      }
      std::string what = e.what();
      /* Keep nlohmann's explanation, drop its id and its own position. */
      size_t colon = what.find(": ");
      if (what.find("parse error") != std::string::npos && colon != std::string::npos)
         what = what.substr(colon + 2);
      throw ConfigError(fmt::format("{}:{}:{}: malformed JSON: {}", origin, line, col, what));
   } catch (const json::exception &e) {
      /* Not a syntax error, so without a position: a number too large for a
       * double ("[json.exception.out_of_range.406] number overflow ..."). */
      throw ConfigError(fmt::format("{}: malformed JSON: {}", origin, e.what()));
   }
   merge_json(j, origin);
}

Config
Config::load(const std::string &path)
{
   std::string text, why;
   if (!read_file(path, text, &why))
      throw ConfigError(fmt::format("cannot read configuration file '{}': {}", path, why));
   Config c;
   c.merge_json_text(text, path);
   try {
      c.validate();
   } catch (const ConfigError &e) {
      throw ConfigError(fmt::format("{}: {}", path, e.what())); /* name the file */
   }
   return c;
}

static uint64_t
parse_uint_text(std::string_view origin, std::string_view key, std::string_view text)
{
   std::string t(text);
   while (!t.empty() && std::isspace((unsigned char)t.back()))
      t.pop_back();
   size_t b = 0;
   while (b < t.size() && std::isspace((unsigned char)t[b]))
      b++;
   t = t.substr(b);
   uint64_t mult = 1;
   if (!t.empty()) {
      switch (t.back()) {
      case 'k':
      case 'K':
         mult = 1ull << 10;
         break;
      case 'm':
      case 'M':
         mult = 1ull << 20;
         break;
      case 'g':
      case 'G':
         mult = 1ull << 30;
         break;
      default:
         break;
      }
      if (mult != 1)
         t.pop_back();
   }
   bool ok = !t.empty() && t[0] != '-' && t[0] != '+';
   uint64_t v = 0;
   if (ok) {
      try {
         size_t used = 0;
         v = std::stoull(t, &used, 0);
         ok = used == t.size();
      } catch (const std::exception &) {
         ok = false;
      }
   }
   if (!ok || (mult != 1 && v > UINT64_MAX / mult)) {
      throw ConfigError(fmt::format("{}: key '{}': expected an unsigned integer (decimal or 0x "
                                    "hex, optional K/M/G suffix), got '{}'",
                                    origin, key, text));
   }
   return v * mult;
}

void
Config::set(std::string_view key, std::string_view value)
{
   const std::string origin = fmt::format("override '{}={}'", key, value);
   if (const KeyInfo *k = find_key(key)) {
      uint64_t v = parse_uint_text(origin, key, value);
      check_range(origin, k->key, v, k->min, k->max);
      k->set(*this, v);
      return;
   }
   std::string qname;
   std::string_view field;
   if (split_queue_key(origin, key, &qname, &field)) {
      const KeyInfo &info = queue_field_info(field);
      uint64_t v = parse_uint_text(origin, key, value);
      check_range(origin, std::string(key).c_str(), v, info.min, info.max);
      queues[qname].*queue_field_member(field) = uint32_t(v);
      return;
   }
   unknown_key(origin, key);
}

void
Config::apply_overrides(std::string_view spec)
{
   /* Work on a copy: an error leaves *this unchanged. */
   Config c = *this;
   size_t pos = 0;
   while (pos <= spec.size()) {
      size_t comma = spec.find(',', pos);
      if (comma == std::string_view::npos)
         comma = spec.size();
      std::string_view item = spec.substr(pos, comma - pos);
      while (!item.empty() && std::isspace((unsigned char)item.front()))
         item.remove_prefix(1);
      while (!item.empty() && std::isspace((unsigned char)item.back()))
         item.remove_suffix(1);
      if (!item.empty()) {
         size_t eq = item.find('=');
         if (eq == std::string_view::npos || eq == 0) {
            throw ConfigError(
               fmt::format("override '{}': expected key=value (e.g. gpcs=2,spcs_per_gpc=8)", item));
         }
         std::string_view key = item.substr(0, eq);
         while (!key.empty() && std::isspace((unsigned char)key.back()))
            key.remove_suffix(1);
         c.set(key, item.substr(eq + 1));
      }
      pos = comma + 1;
   }
   *this = std::move(c);
}

uint64_t
Config::get(std::string_view key) const
{
   if (const KeyInfo *k = find_key(key))
      return k->get(*this);
   unknown_key("Config::get", key);
}

static bool
is_pow2(uint64_t v)
{
   return v && !(v & (v - 1));
}

/* Bounds of what a configuration makes the simulator allocate, whatever each
 * key's own range allows (64 x 64 SPCs of 1 GiB L1 each would be 4 TiB of
 * cache lines): the lines of every cache together (the cycle mode keeps a
 * 24-byte record per line), and the register files and shared memories of
 * every SPC. */
constexpr uint64_t kMaxCacheLines = uint64_t(1) << 27;
constexpr uint64_t kMaxSpcStorageBytes = uint64_t(16) << 30;

static void
check_totals(const Config &c)
{
   const uint64_t spcs = uint64_t(c.gpcs) * c.spcs_per_gpc;
   const uint64_t cache_bytes = spcs * (uint64_t(c.spc_icache_bytes) + c.spc_l1_bytes) +
                                uint64_t(c.gpcs) * c.omu_cache_bytes + c.l2_size_bytes;
   const uint64_t lines = cache_bytes / c.l2_line_bytes;
   if (lines > kMaxCacheLines) {
      throw ConfigError(fmt::format(
         "configuration: the caches hold {} lines of l2.line_bytes = {} in all (gpcs x "
         "spcs_per_gpc x (spc.icache_bytes + spc.l1_bytes) + gpcs x omu.cache_bytes + "
         "l2.size_bytes = {} bytes), more than {} (the simulator keeps a record per line)",
         lines, c.l2_line_bytes, cache_bytes, kMaxCacheLines));
   }
   const uint64_t storage = spcs * (uint64_t(c.spc_register_file_bytes) + c.shared_memory_bytes);
   if (storage > kMaxSpcStorageBytes) {
      throw ConfigError(fmt::format("configuration: the SPCs' register files and shared memories "
                                    "are {} bytes in all (gpcs x spcs_per_gpc x "
                                    "(spc.register_file_bytes + spc.shared_memory_bytes)), more "
                                    "than {} (16 GiB)",
                                    storage, kMaxSpcStorageBytes));
   }
}

void
Config::validate() const
{
   for (const KeyInfo &k : keys())
      check_range("configuration", k.key, k.get(*this), k.min, k.max);
   if (thread_group_width % 4) {
      throw ConfigError(fmt::format("configuration: key 'thread_group_width' = {} must be a "
                                    "multiple of 4 (thread groups are made of 2x2 quads)",
                                    thread_group_width));
   }
   if (!is_pow2(pe_tile_pixels)) {
      throw ConfigError(fmt::format(
         "configuration: key 'pe.tile_pixels' = {} must be a power of two", pe_tile_pixels));
   }
   if (spc_register_file_bytes < uint64_t(thread_group_width) * 16) {
      throw ConfigError(fmt::format("configuration: key 'spc.register_file_bytes' = {} cannot "
                                    "hold one vec4 register of a {}-lane thread group ({} bytes)",
                                    spc_register_file_bytes, thread_group_width,
                                    uint64_t(thread_group_width) * 16));
   }
   if (!is_pow2(l2_line_bytes)) {
      throw ConfigError(fmt::format(
         "configuration: key 'l2.line_bytes' = {} must be a power of two", l2_line_bytes));
   }
   const uint64_t set_bytes = uint64_t(l2_ways) * l2_line_bytes;
   if (l2_size_bytes % set_bytes || !is_pow2(l2_size_bytes / set_bytes)) {
      throw ConfigError(fmt::format("configuration: keys 'l2.size_bytes' = {}, 'l2.ways' = {}, "
                                    "'l2.line_bytes' = {}: the number of sets (size / (ways * "
                                    "line_bytes)) must be a whole power of two",
                                    l2_size_bytes, l2_ways, l2_line_bytes));
   }
   check_totals(*this);
   const QueueParams d = default_queue();
   if (d.bandwidth > d.capacity) {
      throw ConfigError(fmt::format("configuration: key 'queues.default.bandwidth' = {} exceeds "
                                    "'queues.default.capacity' = {}",
                                    d.bandwidth, d.capacity));
   }
   for (const auto &[name, ov] : queues) {
      const uint32_t cap = ov.capacity.value_or(d.capacity);
      const uint32_t bw = ov.bandwidth.value_or(d.bandwidth);
      if (bw > cap) {
         throw ConfigError(fmt::format("configuration: queue '{}': bandwidth {} exceeds capacity "
                                       "{} (keys 'queues.{}.*')",
                                       name, bw, cap, name));
      }
   }
}

QueueParams
Config::default_queue() const
{
   return QueueParams{queue_default_capacity, queue_default_latency, queue_default_bandwidth};
}

QueueParams
Config::queue_params(std::string_view queue_name, std::string_view from, std::string_view to,
                     const QueueParams &base, std::vector<std::string> *matched) const
{
   QueueParams p = base;
   for (std::string_view n : {from, to, queue_name}) {
      auto it = queues.find(std::string(n));
      if (it == queues.end())
         continue;
      if (it->second.capacity)
         p.capacity = *it->second.capacity;
      if (it->second.latency)
         p.latency = *it->second.latency;
      if (it->second.bandwidth)
         p.bandwidth = *it->second.bandwidth;
      if (matched)
         matched->push_back(it->first);
   }
   if (p.bandwidth > p.capacity || !p.capacity || !p.latency || !p.bandwidth) {
      throw ConfigError(fmt::format("queue '{}': invalid parameters capacity {}, latency {}, "
                                    "bandwidth {} (need capacity >= 1, latency >= 1, "
                                    "1 <= bandwidth <= capacity)",
                                    queue_name, p.capacity, p.latency, p.bandwidth));
   }
   return p;
}

ordered_json
Config::to_json() const
{
   ordered_json j = ordered_json::object();
   for (const KeyInfo &k : keys()) {
      /* Nest by dots: "l2.size_bytes" -> j["l2"]["size_bytes"]. */
      ordered_json *node = &j;
      std::string_view key = k.key;
      size_t dot;
      while ((dot = key.find('.')) != std::string_view::npos) {
         node = &(*node)[std::string(key.substr(0, dot))];
         key.remove_prefix(dot + 1);
      }
      (*node)[std::string(key)] = k.get(*this);
   }
   for (const auto &[name, ov] : queues) {
      ordered_json o = ordered_json::object();
      if (ov.capacity)
         o["capacity"] = *ov.capacity;
      if (ov.latency)
         o["latency"] = *ov.latency;
      if (ov.bandwidth)
         o["bandwidth"] = *ov.bandwidth;
      j["queues"][name] = std::move(o);
   }
   return j;
}

std::string
Config::to_json_string() const
{
   return to_json().dump(2) + "\n";
}

void
Config::write_json(const std::string &path) const
{
   std::ofstream f(path, std::ios::binary | std::ios::trunc);
   if (!f)
      throw ConfigError(fmt::format("cannot write configuration file '{}'", path));
   f << to_json_string();
   f.flush();
   if (!f)
      throw ConfigError(fmt::format("error writing configuration file '{}'", path));
}

static std::string
format_value(const char *key, uint64_t v)
{
   std::string s = std::to_string(v);
   std::string_view k = key;
   if (k.size() > 6 && k.substr(k.size() - 6) == "_bytes" && v >= 1024) {
      if (v % (1ull << 30) == 0)
         s += fmt::format(" ({} GiB)", v >> 30);
      else if (v % (1ull << 20) == 0)
         s += fmt::format(" ({} MiB)", v >> 20);
      else if (v % (1ull << 10) == 0)
         s += fmt::format(" ({} KiB)", v >> 10);
   }
   return s;
}

static const char *kQueuePatternDoc =
   "Override of one queue's capacity, latency or bandwidth; <name> is the queue's producer port "
   "(\"cp.out_draw\"), consumer port (\"gts.in_draw\") or full name "
   "(\"cp.out_draw->gts.in_draw\"). A name that matches no queue is an error when the GPU is "
   "assembled.";

/** The key reference: @a header, then one row per key of the table written
 *  with @a row (fmt arguments: key, type, default, minimum, maximum, doc),
 *  then the queues.<name> pattern written with @a queue_row (argument: its
 *  doc). describe() and describe_markdown() differ only in these formats. */
static std::string
describe_keys(const char *header, const char *row, const char *queue_row)
{
   std::string s = header;
   auto out = std::back_inserter(s);
   for (const Config::KeyInfo &k : Config::keys()) {
      fmt::format_to(out, fmt::runtime(row), k.key, k.type, format_value(k.key, k.def), k.min,
                     k.max, k.doc);
   }
   fmt::format_to(out, fmt::runtime(queue_row), kQueuePatternDoc);
   return s;
}

std::string
Config::describe()
{
   return describe_keys("vlgpu simulator configuration keys (JSON: dotted keys are nested "
                        "objects; overrides: key=value,...)\n\n",
                        "{}  ({}, default {}, range {}..{})\n    {}\n",
                        "queues.<name>.capacity|latency|bandwidth  (uint32, default "
                        "queues.default.*)\n    {}\n");
}

std::string
Config::describe_markdown()
{
   return describe_keys("| key | type | default | range | description |\n|---|---|---|---|---|\n",
                        "| `{}` | {} | {} | {}..{} | {} |\n",
                        "| `queues.<name>.capacity`, `.latency`, `.bandwidth` | uint32 | "
                        "`queues.default.*` | as the defaults | {} |\n");
}

std::pair<uint64_t, uint64_t>
parse_range(const std::string &range, bool single, const char *what, const char *expected)
{
   const size_t dash = range.find('-');
   char *e1 = nullptr, *e2 = nullptr;
   const std::string a = range.substr(0, dash);
   const std::string b = dash == std::string::npos ? a : range.substr(dash + 1);
   errno = 0;
   const unsigned long long lo = std::strtoull(a.c_str(), &e1, 10);
   const unsigned long long hi =
      b.empty() ? std::numeric_limits<uint64_t>::max() : std::strtoull(b.c_str(), &e2, 10);
   if ((dash == std::string::npos && !single) || a.empty() || !std::isdigit((unsigned char)a[0]) ||
       *e1 || (!b.empty() && (!std::isdigit((unsigned char)b[0]) || *e2)) || errno == ERANGE ||
       (single ? hi < lo : hi <= lo))
      throw ConfigError(fmt::format("{} '{}': expected {}", what, range, expected));
   return {lo, hi};
}

} // namespace vlgpu::sim
