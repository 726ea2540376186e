/*
 * vlgpu simulator, per-draw dump: images (render targets, depth/stencil
 * buffers, texture levels) as PNG files (libpng) and raw .bin files.
 *
 * A format is *exact* when every byte of a pixel is one 8-bit PNG channel,
 * so the PNG alone restores the bytes: R8G8B8A8_UNORM/SRGB and
 * B8G8R8A8_UNORM/SRGB (RGBA), L8_UNORM, R8_UNORM, A8_UNORM (gray),
 * L8A8_UNORM (gray + alpha), R8G8_UNORM (RGB, blue written 0 and ignored
 * when read). For those the PNG is authoritative and no .bin is written.
 * Every other format gets a .bin (the bytes, rows packed, authoritative)
 * and a PNG *preview* for viewing: colour formats as RGBA8 (converted with
 * format_unpack_rgba, clamped to [0, 1]; integers clamped to 0..255;
 * sRGB kept encoded), depth formats as gray depth * 255, S8_UINT as gray
 * stencil.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vlgpu::sim::dump {

/** How a format's pixels are written (see the file comment). */
struct ImageCodec {
   uint32_t format = 0;   /**< enum vlg_format */
   unsigned bpp = 0;      /**< bytes per pixel */
   bool exact = false;    /**< the PNG alone holds the bytes */
   unsigned channels = 4; /**< PNG channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
   bool supported = true; /**< false: no PNG at all (unknown format) */
};

ImageCodec image_codec(uint32_t format);

/** PNG pixels (codec.channels bytes per pixel, rows packed) of the w x h
 *  image whose row y starts at src + y * pitch: the exact mapping or the
 *  preview. */
std::vector<uint8_t> image_to_png_pixels(const ImageCodec &c, const uint8_t *src, uint64_t pitch,
                                         unsigned w, unsigned h);

/** Exact codecs only: PNG pixels back to the format's bytes, rows packed
 *  (w * bpp bytes per row). */
std::vector<uint8_t> png_pixels_to_image(const ImageCodec &c, const std::vector<uint8_t> &px,
                                         unsigned w, unsigned h);

/** Write an 8-bit PNG. @throws DumpError naming the file. */
void write_png(const std::string &path, unsigned w, unsigned h, unsigned channels,
               const uint8_t *pixels);

struct PngImage {
   unsigned width = 0, height = 0, channels = 0;
   std::vector<uint8_t> pixels; /**< rows packed */
};

/**
 * Read an 8-bit PNG of @width x @height pixels (the size draw.txt gives it),
 * converted to @channels channels (libpng's simplified API). The header is
 * read first, with libpng's limits set (png_set_user_limits: at most
 * VLG_HW_MAX_BUFFER_TEXELS x 65535 pixels; png_set_chunk_malloc_max: 4 MiB
 * per ancillary chunk, at most 256 of them), and compared with @width x
 * @height before any pixel buffer is allocated: a header that claims more
 * cannot make the reader allocate more than @width x @height x @channels
 * bytes. @throws DumpError naming the file: not found, not a PNG, another
 * size ("the image is WxH pixels but draw.txt describes wxh"), over libpng's
 * limits, 16 bits per channel (save with 8 bits per channel), corrupt or
 * truncated data.
 */
PngImage read_png(const std::string &path, unsigned channels, unsigned width, unsigned height);

/** Read a whole file of at most @max_bytes bytes (checked with the file's
 *  size before anything is allocated). @throws DumpError naming the file:
 *  cannot open, larger than @max_bytes, read error. */
std::vector<uint8_t> read_file(const std::string &path, uint64_t max_bytes = UINT64_MAX);
/** Write a whole file. @throws DumpError naming the file. */
void write_file(const std::string &path, const void *data, size_t size);
void write_text(const std::string &path, const std::string &text);
std::string read_text(const std::string &path);

} // namespace vlgpu::sim::dump
