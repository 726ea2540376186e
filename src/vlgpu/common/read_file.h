/*
 * vlgpu: reading a whole input file into memory (the C++ side of the project:
 * the simulator's configuration, vlgpu-asm's sources and binaries, the
 * compiler tools' shaders, corpus lists and result files).
 *
 * Every such input is small (a configuration, a shader, a program), so a file
 * above the cap is a mistake (a wrong path, a device, an image) and is refused
 * with a reason instead of being read into memory.
 */
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace vlgpu {

/** Largest file read_file() reads by default: 64 MiB. */
inline constexpr std::size_t kReadFileMaxBytes = std::size_t(64) << 20;

/**
 * Read the whole file @path into @out, its bytes as they are (binary mode:
 * no newline translation). Returns false when the file cannot be opened
 * (missing, not readable, a directory), holds more than @max_bytes bytes or
 * fails while being read; then @out is empty and, if @why is not null, *@why
 * says which ("No such file or directory", "larger than 67108864 bytes",
 * ...), for the caller to print after the path.
 */
inline bool
read_file(const std::string &path, std::string &out, std::string *why = nullptr,
          std::size_t max_bytes = kReadFileMaxBytes)
{
   out.clear();
   std::error_code ec;
   std::ifstream f(path, std::ios::binary);
   std::string reason = !f ? (errno ? std::strerror(errno) : "cannot be opened")
                        : std::filesystem::is_directory(path, ec) ? "is a directory"
                                                                  : "";
   char buf[1 << 16];
   while (reason.empty() && (f.read(buf, sizeof(buf)) || f.gcount() > 0)) {
      if (out.size() + std::size_t(f.gcount()) > max_bytes)
         reason = "larger than " + std::to_string(max_bytes) + " bytes";
      else
         out.append(buf, std::size_t(f.gcount()));
   }
   if (reason.empty() && f.bad())
      reason = "read error";
   if (reason.empty())
      return true;
   if (why)
      *why = reason;
   out.clear();
   return false;
}

} // namespace vlgpu
