/*
 * vlgpu fuzz targets: the container of files the "dump" and "capture"
 * targets read their directory from. Each file is introduced by a line
 * "--- NAME" (at the start of the input or after a newline) and runs up to
 * the next such line; the newline before a "--- " line separates, it belongs
 * to no file. NAME is a plain file name ([A-Za-z0-9._-], at most 64
 * characters, not starting with '.'); files with other names are dropped.
 * scripts/fuzz_seeds.py packs the seeds this way.
 */
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace vlgpu::fuzz {

inline bool
plain_name(const std::string &n)
{
   if (n.empty() || n.size() > 64 || n[0] == '.')
      return false;
   return std::all_of(n.begin(), n.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '_' || c == '-';
   });
}

/** The (name, contents) of the plain-named files of @input, in order. */
inline std::vector<std::pair<std::string, std::string>>
unpack_container(const std::string &input)
{
   std::vector<std::pair<std::string, std::string>> files;
   size_t pos = input.compare(0, 4, "--- ") == 0 ? 0 : input.find("\n--- ");
   if (pos != std::string::npos && pos != 0)
      pos++;
   while (pos != std::string::npos) {
      const size_t name_end = input.find('\n', pos);
      if (name_end == std::string::npos)
         break;
      std::string name = input.substr(pos + 4, name_end - pos - 4);
      const size_t next = input.find("\n--- ", name_end);
      const size_t end = next == std::string::npos ? input.size() : next;
      const size_t len = end > name_end ? end - name_end - 1 : 0; /* "--- a\n--- b": empty */
      if (plain_name(name))
         files.emplace_back(std::move(name), input.substr(name_end + 1, len));
      pos = next == std::string::npos ? next : next + 1;
   }
   return files;
}

/** This process's scratch directory for target @target
 *  (TMPDIR/vlgpu-fuzz-TARGET-PID), emptied and created again: one input's
 *  files never meet the next one's. */
inline std::filesystem::path
fresh_work_dir(const std::string &target)
{
   namespace fs = std::filesystem;
   const fs::path dir =
      fs::temp_directory_path() / ("vlgpu-fuzz-" + target + "-" + std::to_string(::getpid()));
   fs::remove_all(dir);
   fs::create_directories(dir);
   return dir;
}

} // namespace vlgpu::fuzz
