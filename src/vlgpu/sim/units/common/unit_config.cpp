/*
 * vlgpu cycle-mode GPU: the module parameter table (unit_config.h).
 */
#include "sim/units/common/unit_config.h"

#include <cctype>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace vlgpu::sim {

const std::vector<UnitParams::KeyInfo> &
UnitParams::keys()
{
   static const std::vector<KeyInfo> k = {
#define VLG_UNIT_CONFIG_INFO(type, field, key, def, min, max, doc)                                 \
   KeyInfo{key,                                                                                    \
           uint64_t(def),                                                                          \
           uint64_t(min),                                                                          \
           uint64_t(max),                                                                          \
           doc,                                                                                    \
           [](const UnitParams &p) { return uint64_t(p.field); },                                  \
           [](UnitParams &p, uint64_t v) { p.field = type(v); }},
      VLG_UNIT_CONFIG_KEYS(VLG_UNIT_CONFIG_INFO)
#undef VLG_UNIT_CONFIG_INFO
   };
   return k;
}

namespace {

std::string_view
trim(std::string_view s)
{
   while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
      s.remove_prefix(1);
   while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
      s.remove_suffix(1);
   return s;
}

/** Decimal or 0x-hex with an optional K/M/G (x1024) suffix. */
uint64_t
parse_value(std::string_view item, std::string_view text)
{
   std::string_view t = text;
   uint64_t mul = 1;
   if (!t.empty()) {
      const char s = char(std::toupper(static_cast<unsigned char>(t.back())));
      if (s == 'K' || s == 'M' || s == 'G') {
         mul = s == 'K' ? 1024ull : s == 'M' ? 1024ull * 1024 : 1024ull * 1024 * 1024;
         t.remove_suffix(1);
      }
   }
   unsigned base = 10;
   if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
      base = 16;
      t.remove_prefix(2);
   }
   if (t.empty())
      throw ConfigError(fmt::format("units config '{}': expected an unsigned integer", item));
   uint64_t v = 0;
   for (char c : t) {
      unsigned d;
      if (c >= '0' && c <= '9')
         d = unsigned(c - '0');
      else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c)))
         d = unsigned(std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
      else
         throw ConfigError(
            fmt::format("units config '{}': '{}' is not an unsigned integer", item, text));
      if (v > (UINT64_MAX - d) / base)
         throw ConfigError(fmt::format("units config '{}': value too large", item));
      v = v * base + d;
   }
   if (mul > 1 && v > UINT64_MAX / mul)
      throw ConfigError(fmt::format("units config '{}': value too large", item));
   return v * mul;
}

} // namespace

void
UnitParams::apply_overrides(std::string_view spec)
{
   UnitParams tmp = *this;
   std::vector<std::string> names;
   for (const KeyInfo &k : keys())
      names.emplace_back(k.key);
   while (!spec.empty()) {
      const size_t comma = spec.find(',');
      const std::string_view item = trim(spec.substr(0, comma));
      spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
      if (item.empty())
         continue;
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos)
         throw ConfigError(fmt::format("units config '{}': expected key=value", item));
      const std::string_view key = trim(item.substr(0, eq));
      const std::string_view val = trim(item.substr(eq + 1));
      const KeyInfo *info = nullptr;
      for (const KeyInfo &k : keys())
         if (key == k.key)
            info = &k;
      if (!info)
         throw ConfigError(fmt::format("units config: unknown key '{}'{}", key,
                                       did_you_mean(key, names)));
      const uint64_t v = parse_value(item, val);
      if (v < info->min || v > info->max)
         throw ConfigError(fmt::format("units config: key '{}': value {} out of range [{}, {}]",
                                       key, v, info->min, info->max));
      info->set(tmp, v);
   }
   *this = tmp;
}

void
UnitParams::validate() const
{
   core.validate();
   const unsigned w = core.thread_group_width;
   if (w < 4 || w > 64 || w % 4 != 0)
      throw ConfigError(fmt::format("thread_group_width = {}: the cycle-mode GPU runs thread "
                                    "groups of 4..64 lanes, a multiple of 4",
                                    w));
   if (pe_tile_pixels & (pe_tile_pixels - 1))
      throw ConfigError(
         fmt::format("units config: pe.tile_pixels = {} is not a power of two", pe_tile_pixels));
   if (core.l2_line_bytes > 4096)
      throw ConfigError("l2.line_bytes: the cycle-mode GPU supports lines of at most 4096 bytes");
   const uint64_t group_min = uint64_t(w) * 16;
   if (spc_register_file_bytes < group_min)
      throw ConfigError(fmt::format("units config: spc.register_file_bytes = {} cannot hold one "
                                    "register of a {}-lane thread group ({} bytes)",
                                    spc_register_file_bytes, w, group_min));
}

nlohmann::ordered_json
UnitParams::to_json() const
{
   nlohmann::ordered_json j = nlohmann::ordered_json::object();
   for (const KeyInfo &k : keys()) {
      const std::string key = k.key;
      const size_t dot = key.find('.');
      j[key.substr(0, dot)][key.substr(dot + 1)] = k.get(*this);
   }
   return j;
}

std::string
UnitParams::describe_markdown()
{
   std::string s = "| key | default | range | description |\n|---|---|---|---|\n";
   for (const KeyInfo &k : keys())
      s += fmt::format("| `{}` | {} | {}..{} | {} |\n", k.key, k.def, k.min, k.max, k.doc);
   return s;
}

} // namespace vlgpu::sim
