/*
 * vlgpu simulator, per-draw dump: PNG and raw image files (see image.h).
 */
#include "image.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <png.h>

#include "sim/dump/dump.h"
#include "common/bits.h"
#include "sim/func/tex/format.h"

namespace vlgpu::sim::dump {

namespace {

/** PNG channels of a format whose bytes a PNG holds exactly (8-bit UNORM
 *  and sRGB; BGRA swizzled to RGBA, R8G8 as RGB with blue 0), else 0. */
unsigned
exact_png_channels(uint32_t format)
{
   switch (format) {
   case VLG_FORMAT_R8G8B8A8_UNORM:
   case VLG_FORMAT_R8G8B8A8_SRGB:
   case VLG_FORMAT_B8G8R8A8_UNORM:
   case VLG_FORMAT_B8G8R8A8_SRGB:
      return 4;
   case VLG_FORMAT_L8_UNORM:
   case VLG_FORMAT_R8_UNORM:
   case VLG_FORMAT_A8_UNORM:
      return 1;
   case VLG_FORMAT_L8A8_UNORM:
      return 2;
   case VLG_FORMAT_R8G8_UNORM:
      return 3;
   default:
      return 0;
   }
}

} // namespace

ImageCodec
image_codec(uint32_t format)
{
   ImageCodec c;
   c.format = format;
   c.bpp = vlg_format_bytes(format);
   if (const unsigned exact_channels = exact_png_channels(format)) {
      c.exact = true;
      c.channels = exact_channels;
      return c;
   }
   const FormatInfo &fi = format_info(format);
   c.supported = fi.supported && c.bpp > 0;
   c.channels = (fi.is_depth || format == VLG_FORMAT_S8_UINT) ? 1 : 4;
   return c;
}

namespace {

uint8_t
preview_channel(const FormatInfo &fi, uint32_t v)
{
   if (fi.is_integer) {
      if (fi.is_signed) {
         const int32_t s = int32_t(v);
         return uint8_t(std::clamp<int32_t>(s, 0, 255));
      }
      return uint8_t(std::min<uint32_t>(v, 255));
   }
   return float_to_unorm8(as_float(v));
}

void
preview_pixel(const ImageCodec &c, const uint8_t *src, uint8_t *dst)
{
   const vlg_format f = vlg_format(c.format);
   const FormatInfo &fi = format_info(c.format);
   if (c.channels == 1) {
      if (fi.is_depth)
         dst[0] = float_to_unorm8(format_unpack_depth(f, src));
      else
         dst[0] = format_unpack_stencil(f, src);
      return;
   }
   uint32_t w[4];
   format_unpack_rgba(f, src, w);
   for (unsigned i = 0; i < 4; i++) {
      if (fi.is_srgb && i < 3) {
         float l;
         std::memcpy(&l, &w[i], 4);
         dst[i] = linear_to_srgb8(l);
      } else {
         dst[i] = preview_channel(fi, w[i]);
      }
   }
}

} // namespace

std::vector<uint8_t>
image_to_png_pixels(const ImageCodec &c, const uint8_t *src, uint64_t pitch, unsigned w, unsigned h)
{
   std::vector<uint8_t> px(size_t(w) * h * c.channels);
   uint8_t *d = px.data();
   for (unsigned y = 0; y < h; y++) {
      const uint8_t *s = src + uint64_t(y) * pitch;
      for (unsigned x = 0; x < w; x++, s += c.bpp, d += c.channels) {
         if (!c.exact) {
            preview_pixel(c, s, d);
            continue;
         }
         switch (c.format) {
         case VLG_FORMAT_B8G8R8A8_UNORM:
         case VLG_FORMAT_B8G8R8A8_SRGB:
            d[0] = s[2], d[1] = s[1], d[2] = s[0], d[3] = s[3];
            break;
         case VLG_FORMAT_R8G8_UNORM:
            d[0] = s[0], d[1] = s[1], d[2] = 0;
            break;
         default:
            std::memcpy(d, s, c.channels);
            break;
         }
      }
   }
   return px;
}

std::vector<uint8_t>
png_pixels_to_image(const ImageCodec &c, const std::vector<uint8_t> &px, unsigned w, unsigned h)
{
   std::vector<uint8_t> out(size_t(w) * h * c.bpp);
   const uint8_t *s = px.data();
   uint8_t *d = out.data();
   for (size_t i = 0; i < size_t(w) * h; i++, s += c.channels, d += c.bpp) {
      switch (c.format) {
      case VLG_FORMAT_B8G8R8A8_UNORM:
      case VLG_FORMAT_B8G8R8A8_SRGB:
         d[0] = s[2], d[1] = s[1], d[2] = s[0], d[3] = s[3];
         break;
      case VLG_FORMAT_R8G8_UNORM:
         d[0] = s[0], d[1] = s[1];
         break;
      default:
         std::memcpy(d, s, c.bpp);
         break;
      }
   }
   return out;
}

namespace {

png_uint_32
png_format(unsigned channels)
{
   switch (channels) {
   case 1:
      return PNG_FORMAT_GRAY;
   case 2:
      return PNG_FORMAT_GA;
   case 3:
      return PNG_FORMAT_RGB;
   default:
      return PNG_FORMAT_RGBA;
   }
}

} // namespace

void
write_png(const std::string &path, unsigned w, unsigned h, unsigned channels, const uint8_t *pixels)
{
   png_image img;
   std::memset(&img, 0, sizeof(img));
   img.version = PNG_IMAGE_VERSION;
   img.width = w;
   img.height = h;
   img.format = png_format(channels);
   if (!png_image_write_to_file(&img, path.c_str(), 0, pixels, png_int_32(w * channels), nullptr)) {
      const std::string why = img.message;
      png_image_free(&img);
      throw DumpError(fmt::format("{}: cannot write PNG: {}", path, why));
   }
}

PngImage
read_png(const std::string &path, unsigned channels)
{
   png_image img;
   std::memset(&img, 0, sizeof(img));
   img.version = PNG_IMAGE_VERSION;
   if (!png_image_begin_read_from_file(&img, path.c_str())) {
      std::string why = img.message;
      png_image_free(&img);
      if (errno == ENOENT && why.find("No such file") != std::string::npos)
         why = "file not found";
      throw DumpError(fmt::format("{}: cannot read PNG: {}", path, why));
   }
   if (img.format & PNG_FORMAT_FLAG_LINEAR) {
      png_image_free(&img);
      throw DumpError(fmt::format("{}: 16 bits per channel; save the image with 8 bits per "
                                  "channel",
                                  path));
   }
   img.format = png_format(channels);
   PngImage r;
   r.width = img.width;
   r.height = img.height;
   r.channels = channels;
   r.pixels.resize(size_t(img.width) * img.height * channels);
   if (!png_image_finish_read(&img, nullptr, r.pixels.data(), 0, nullptr)) {
      const std::string why = img.message;
      png_image_free(&img);
      throw DumpError(fmt::format("{}: cannot read PNG: {}", path, why));
   }
   return r;
}

std::vector<uint8_t>
read_file(const std::string &path)
{
   std::ifstream f(path, std::ios::binary);
   if (!f)
      throw DumpError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
   std::vector<uint8_t> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
   if (f.bad())
      throw DumpError(fmt::format("{}: read error", path));
   return data;
}

std::string
read_text(const std::string &path)
{
   const std::vector<uint8_t> d = read_file(path);
   return std::string(d.begin(), d.end());
}

void
write_file(const std::string &path, const void *data, size_t size)
{
   std::ofstream f(path, std::ios::binary | std::ios::trunc);
   if (!f)
      throw DumpError(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
   f.write(static_cast<const char *>(data), std::streamsize(size));
   f.close();
   if (!f)
      throw DumpError(fmt::format("{}: write error: {}", path, std::strerror(errno)));
}

void
write_text(const std::string &path, const std::string &text)
{
   write_file(path, text.data(), text.size());
}

} // namespace vlgpu::sim::dump
