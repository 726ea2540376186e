/*
 * vlgpu simulator, per-draw dump: PNG and raw image files (see image.h).
 */
#include "image.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <png.h>

#include "sim/dump/dump.h"
#include "common/bits.h"
#include "sim/func/tex/format.h"
#include "vlg_limits.h"

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

/** The @bpp bytes of one pixel of an exact format from VRAM to PNG channels
 *  or back (the same mapping both ways): B8G8R8A8 swaps B and R, the other
 *  exact formats keep their bytes (R8G8's third PNG channel, blue, is the
 *  caller's). */
void
exact_pixel(uint32_t format, const uint8_t *src, uint8_t *dst, unsigned bpp)
{
   if (format == VLG_FORMAT_B8G8R8A8_UNORM || format == VLG_FORMAT_B8G8R8A8_SRGB)
      dst[0] = src[2], dst[1] = src[1], dst[2] = src[0], dst[3] = src[3];
   else
      std::memcpy(dst, src, bpp);
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
         exact_pixel(c.format, s, d, c.bpp);
         if (c.format == VLG_FORMAT_R8G8_UNORM)
            d[2] = 0; /* PNG blue */
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
      exact_pixel(c.format, s, d, c.bpp);
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

namespace {

/* libpng's own limits while it reads a dump's PNG header: the widest image a
 * dump holds is a BUFFER texture's one row (VLG_HW_MAX_BUFFER_TEXELS), the
 * tallest a 16-bit surface or texture height; ancillary chunks (text, ICC
 * profiles) are capped in size and number. */
constexpr png_uint_32 kPngMaxWidth = VLG_HW_MAX_BUFFER_TEXELS;
constexpr png_uint_32 kPngMaxHeight = 65535;
constexpr png_alloc_size_t kPngMaxChunkBytes = 4u << 20;
constexpr png_uint_32 kPngMaxChunks = 256;

struct PngHeader {
   png_uint_32 width = 0, height = 0;
   char warning[256] = ""; /**< the first warning (libpng's limits warn, then fail) */
   char error[512] = "";
};

void
png_error_to_header(png_structp png, png_const_charp msg)
{
   PngHeader *h = static_cast<PngHeader *>(png_get_error_ptr(png));
   if (h->warning[0])
      std::snprintf(h->error, sizeof(h->error), "%s (%s)", msg, h->warning);
   else
      std::snprintf(h->error, sizeof(h->error), "%s", msg);
   png_longjmp(png, 1);
}

void
png_keep_warning(png_structp png, png_const_charp msg)
{
   PngHeader *h = static_cast<PngHeader *>(png_get_error_ptr(png));
   if (!h->warning[0])
      std::snprintf(h->warning, sizeof(h->warning), "%s", msg);
}

/* The PNG's IHDR through libpng with the limits above (png_read_info reads
 * the chunks before the image data). No C++ object lives across setjmp. */
bool
read_png_header(std::FILE *f, PngHeader *h)
{
   png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, h, png_error_to_header, png_keep_warning);
   png_infop info = png ? png_create_info_struct(png) : nullptr;
   if (!info) {
      png_destroy_read_struct(&png, nullptr, nullptr);
      std::snprintf(h->error, sizeof(h->error), "out of memory");
      return false;
   }
   if (setjmp(png_jmpbuf(png))) {
      png_destroy_read_struct(&png, &info, nullptr);
      return false;
   }
   png_set_user_limits(png, kPngMaxWidth, kPngMaxHeight);
   png_set_chunk_malloc_max(png, kPngMaxChunkBytes);
   png_set_chunk_cache_max(png, kPngMaxChunks);
   png_init_io(png, f);
   png_read_info(png, info);
   h->width = png_get_image_width(png, info);
   h->height = png_get_image_height(png, info);
   png_destroy_read_struct(&png, &info, nullptr);
   return true;
}

[[noreturn]] void
throw_size_mismatch(const std::string &path, unsigned w, unsigned h, unsigned width,
                    unsigned height)
{
   throw DumpError(fmt::format("{}: the image is {}x{} pixels but draw.txt describes {}x{}", path,
                               w, h, width, height));
}

} // namespace

PngImage
read_png(const std::string &path, unsigned channels, unsigned width, unsigned height)
{
   PngHeader hdr;
   std::FILE *f = std::fopen(path.c_str(), "rb");
   if (!f)
      throw DumpError(fmt::format("{}: cannot read PNG: {}", path,
                                  errno == ENOENT ? "file not found" : std::strerror(errno)));
   const bool header_ok = read_png_header(f, &hdr);
   std::fclose(f);
   if (!header_ok)
      throw DumpError(fmt::format("{}: cannot read PNG: {}", path, hdr.error));
   if (hdr.width != width || hdr.height != height)
      throw_size_mismatch(path, hdr.width, hdr.height, width, height);

   png_image img;
   std::memset(&img, 0, sizeof(img));
   img.version = PNG_IMAGE_VERSION;
   if (!png_image_begin_read_from_file(&img, path.c_str())) {
      const std::string why = img.message;
      png_image_free(&img);
      throw DumpError(fmt::format("{}: cannot read PNG: {}", path, why));
   }
   if (img.format & PNG_FORMAT_FLAG_LINEAR) {
      png_image_free(&img);
      throw DumpError(fmt::format("{}: 16 bits per channel; save the image with 8 bits per "
                                  "channel",
                                  path));
   }
   if (img.width != width || img.height != height) { /* the file changed since the header */
      png_image_free(&img);
      throw_size_mismatch(path, img.width, img.height, width, height);
   }
   img.format = png_format(channels);
   PngImage r;
   r.width = width;
   r.height = height;
   r.channels = channels;
   r.pixels.resize(size_t(width) * height * channels);
   if (!png_image_finish_read(&img, nullptr, r.pixels.data(), 0, nullptr)) {
      const std::string why = img.message;
      png_image_free(&img);
      throw DumpError(fmt::format("{}: cannot read PNG: {}", path, why));
   }
   return r;
}

std::vector<uint8_t>
read_file(const std::string &path, uint64_t max_bytes)
{
   std::ifstream f(path, std::ios::binary);
   if (!f)
      throw DumpError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
   std::error_code ec;
   const uint64_t size = std::filesystem::file_size(path, ec);
   if (!ec && size > max_bytes)
      throw DumpError(fmt::format("{}: {} bytes, more than the {} bytes it can hold", path, size,
                                  max_bytes));
   std::vector<uint8_t> data;
   char buf[65536];
   while (f.read(buf, sizeof(buf)) || f.gcount() > 0) {
      if (data.size() + uint64_t(f.gcount()) > max_bytes) /* grew while read */
         throw DumpError(fmt::format("{}: more than the {} bytes it can hold", path, max_bytes));
      data.insert(data.end(), buf, buf + f.gcount());
   }
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
