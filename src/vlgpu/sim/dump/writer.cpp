/*
 * vlgpu simulator, per-draw dump: the writer (see dump.h, docs/dump.md).
 *
 * The package is read tolerantly, straight from VRAM: blocks are unpacked
 * without validation (vlg_hw_print flags what is wrong), and a block or a
 * data range outside VRAM is left out with a note, so a malformed package
 * is dumped as far as the GPU could see it.
 */
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/dump/dump.h"
#include "sim/dump/dump_common.h"
#include "sim/dump/hexdump.h"
#include "sim/dump/image.h"
#include "sim/dump/shader_text.h"
#include "sim/func/cp/func_cp.h"
#include "vlg_limits.h"

namespace vlgpu::sim {

using namespace dump;

namespace {

/** Largest data range dumped as one file (a larger one is left out with a note). */
constexpr uint64_t kMaxDumpBytes = 256ull << 20;

/** Read @len dwords at @addr if they lie in VRAM and @addr is dword aligned. */
bool
read_words(const Vram &vram, uint64_t addr, unsigned len, uint32_t *out)
{
   if (addr % 4 != 0 || !vram.contains(addr, uint64_t(len) * 4))
      return false;
   std::memcpy(out, vram.data() + addr, size_t(len) * 4);
   return true;
}

/** A FILE* writing into a string (open_memstream), for vlg_hw_print. */
class StringFile {
 public:
   StringFile()
   {
      fp_ = open_memstream(&buf_, &len_);
      if (!fp_)
         throw std::bad_alloc();
   }
   ~StringFile()
   {
      if (fp_)
         std::fclose(fp_);
      std::free(buf_);
   }
   FILE *fp() { return fp_; }
   std::string str()
   {
      std::fflush(fp_);
      return std::string(buf_ ? buf_ : "", len_);
   }

 private:
   FILE *fp_ = nullptr;
   char *buf_ = nullptr;
   size_t len_ = 0;
};

std::string
print_block(const vlg_hw_struct_info &info, const uint32_t *words)
{
   StringFile f;
   vlg_hw_print(f.fp(), &info, words, nullptr, VLG_HW_PRINT_DOC);
   return f.str();
}

/**
 * print_block() of a block with 64-entry I/O arrays (shader_state inputs[]
 * and outputs[], stream_output outputs[]) without the entries beyond
 * @io's num_inputs / num_outputs that hold only defaults (dump_common.h
 * shader_io_unused), and a comment naming how many were left out.
 */
std::string
print_block_elided(const vlg_hw_struct_info &info, const uint32_t *words, const ShaderIo &io)
{
   const auto [num_inputs, num_outputs, has_inputs] = io;
   std::map<std::string, bool> all_default; /* unused entry -> every field default */
   std::map<std::string, std::string> entry_of;
   for (unsigned i = 0; i < info.num_fields; i++) {
      const vlg_hw_field_info &f = info.fields[i];
      std::string e;
      if (!shader_io_unused(f, num_inputs, num_outputs, &e))
         continue;
      entry_of[f.name] = e;
      auto it = all_default.emplace(e, true).first;
      it->second = it->second && vlg_hw_get_raw(&f, words) == f.default_raw;
   }
   std::string out;
   std::istringstream in(print_block(info, words));
   std::string line;
   while (std::getline(in, line)) {
      const std::string name = line.substr(0, line.find_first_of(" ="));
      auto e = entry_of.find(name);
      if (e != entry_of.end() && all_default[e->second])
         continue;
      out += line + "\n";
   }
   unsigned n = 0;
   for (const auto &[e, def] : all_default)
      n += def;
   if (n && has_inputs)
      out += fmt::format("# {} unused input/output entries (beyond num_inputs = {} / "
                         "num_outputs = {}) hold their defaults and are not listed\n",
                         n, num_inputs, num_outputs);
   else if (n)
      out += fmt::format("# {} unused output entries (beyond num_outputs = {}) hold their "
                         "defaults and are not listed\n",
                         n, num_outputs);
   return out;
}

const char *
name_or(const char *n, const char *fallback = "?")
{
   return n ? n : fallback;
}

/** One command of the queue as a one-line description (for command.txt). */
std::string
describe_command(const uint32_t *w, uint32_t avail, uint32_t &length)
{
   VLG_CMD_HEADER h;
   VLG_CMD_HEADER_unpack(w, &h);
   length = h.length;
   const char *op = vlg_cmd_opcode_name(h.opcode);
   if (!op)
      return fmt::format("header 0x{:08x}: not a command", w[0]);
   if (h.length > avail)
      return fmt::format("{} of length {}: runs past the end of the queue", op, h.length);
   if (h.opcode == VLG_CMD_OPCODE_HALT)
      return "HALT";
   Command c;
   c.opcode = h.opcode;
   const unsigned need = cp_command_info(c.opcode).length;
   if (h.length < need)
      return fmt::format("{} with length {}", op, h.length);
   std::memcpy(c.words, w, need * 4);
   cp_unpack_command(c);
   switch (c.opcode) {
   case VLG_CMD_OPCODE_DRAW:
      return fmt::format("DRAW draw_info = 0x{:x}", c.draw.draw_info);
   case VLG_CMD_OPCODE_SYNC:
      return fmt::format("SYNC fence_address = 0x{:x}, fence_value = {}", c.sync.fence_address,
                         c.sync.fence_value);
   case VLG_CMD_OPCODE_DUMP:
      return fmt::format("DUMP surface = 0x{:x} to display {}, rect ({}, {})-({}, {})",
                         c.dump.surface, c.dump.display_id, c.dump.rect.minx, c.dump.rect.miny,
                         c.dump.rect.maxx, c.dump.rect.maxy);
   case VLG_CMD_OPCODE_DISPATCH:
      return fmt::format("DISPATCH compute_info = 0x{:x} (not dumped)", c.dispatch.compute_info);
   case VLG_CMD_OPCODE_COPY:
      return fmt::format("COPY copy_info = 0x{:x}", c.copy.copy_info);
   default: /* HALT, above */
      return op;
   }
}

/** One block of the package as read from VRAM: its address, its
 *  VLG_<STRUCT>_LENGTH words and, when they could be read (ok), its fields. */
template <typename T, unsigned Length, unsigned (*Unpack)(const uint32_t *, T *)> struct RawBlock {
   static constexpr unsigned kLength = Length;
   bool ok = false;
   uint64_t addr = 0;
   uint32_t words[Length] = {};
   T v = {};

   /** Reads the block at @a a (ok false where it is not in VRAM). */
   void read(const Vram &vram, uint64_t a)
   {
      addr = a;
      if ((ok = read_words(vram, addr, Length, words)))
         Unpack(words, &v);
   }
};

/** Reads the array of @a count blocks at @a base (docs/hw.md "Conventions":
 *  element i at base + i * LENGTH * 4 bytes) into @a out. */
template <typename Block>
void
read_block_array(const Vram &vram, uint64_t base, unsigned count, std::vector<Block> &out)
{
   out.resize(count);
   for (unsigned i = 0; i < count; i++)
      out[i].read(vram, base + uint64_t(i) * Block::kLength * 4);
}

/** The package as read from VRAM, without validation. */
struct RawPackage {
   bool have_draw = false;
   uint32_t draw_words[VLG_DRAW_INFO_LENGTH] = {};
   VLG_DRAW_INFO d = {};

   bool have_pipe = false;
   uint32_t pipe_words[VLG_PIPE_STATE_LENGTH] = {};

   bool have_fb = false;
   uint32_t fb_words[VLG_FRAMEBUFFER_LENGTH] = {};
   VLG_FRAMEBUFFER fb = {};

   using Elem = RawBlock<VLG_VERTEX_ELEMENT, VLG_VERTEX_ELEMENT_LENGTH, VLG_VERTEX_ELEMENT_unpack>;
   using Buf = RawBlock<VLG_VERTEX_BUFFER, VLG_VERTEX_BUFFER_LENGTH, VLG_VERTEX_BUFFER_unpack>;
   using Tex = RawBlock<VLG_TEXTURE, VLG_TEXTURE_LENGTH, VLG_TEXTURE_unpack>;
   using Smp = RawBlock<VLG_SAMPLER, VLG_SAMPLER_LENGTH, VLG_SAMPLER_unpack>;
   using Shader = RawBlock<VLG_SHADER_STATE, VLG_SHADER_STATE_LENGTH, VLG_SHADER_STATE_unpack>;
   std::vector<Elem> elems;
   std::vector<Buf> bufs;
   /* per stage: vs, fs and, when draw_info.gs != 0, gs (kStage) */
   std::vector<Tex> tex[3];
   std::vector<Smp> smp[3];
   Shader sh[3];
   /** Uniform-buffer slots B0.. of each shader (shader_state.buffers). */
   using Ubo = RawBlock<VLG_BUFFER, VLG_BUFFER_LENGTH, VLG_BUFFER_unpack>;
   std::vector<Ubo> ubos[3];
   /** draw_info.stream_output (transform feedback), when not 0. */
   bool have_so = false, so_ok = false;
   uint32_t so_words[VLG_STREAM_OUTPUT_LENGTH] = {};
   VLG_STREAM_OUTPUT so = {};

   /** draw_info.resolve_dst of a RESOLVE draw. */
   bool have_resolve = false;
   uint32_t resolve_words[VLG_SURFACE_LENGTH] = {};
   VLG_SURFACE resolve = {};
   /** The draw-indirect command at draw_info.indirect (4 words, 5 if indexed). */
   bool have_indirect = false;
   unsigned indirect_words = 0;
   uint32_t indirect[5] = {};

   /** CLEAR and RESOLVE: no pipeline state, shaders or vertex data. */
   bool fixed() const { return fixed_function_kind(d.kind); }
   /** Shader stages of the draw: vs, fs, and gs with a geometry shader. */
   unsigned stages() const { return d.gs ? 3 : 2; }

   /** draw_info with the indirect command's words in place of its fields
    *  (what the CP draws, hw xml draw_info.indirect). */
   VLG_DRAW_INFO effective() const
   {
      VLG_DRAW_INFO e = d;
      if (!have_indirect)
         return e;
      e.count = indirect[0];
      e.instance_count = indirect[1];
      e.start = indirect[2];
      if (indirect_words == 5) {
         e.base_vertex = int32_t(indirect[3]);
         e.start_instance = indirect[4];
      } else {
         e.start_instance = indirect[3];
      }
      return e;
   }
};

const char *const kStage[3] = {"vs", "fs", "gs"};
const char *const kStageName[3] = {"vertex", "fragment", "geometry"};

RawPackage
read_package(const Vram &vram, uint64_t draw_info)
{
   RawPackage p;
   p.have_draw = read_words(vram, draw_info, VLG_DRAW_INFO_LENGTH, p.draw_words);
   if (!p.have_draw)
      return p;
   VLG_DRAW_INFO_unpack(p.draw_words, &p.d);
   const VLG_DRAW_INFO &d = p.d;
   p.have_fb = read_words(vram, d.framebuffer, VLG_FRAMEBUFFER_LENGTH, p.fb_words);
   if (p.have_fb)
      VLG_FRAMEBUFFER_unpack(p.fb_words, &p.fb);
   if (d.kind == VLG_DRAW_KIND_RESOLVE &&
       (p.have_resolve = read_words(vram, d.resolve_dst, VLG_SURFACE_LENGTH, p.resolve_words)))
      VLG_SURFACE_unpack(p.resolve_words, &p.resolve);
   if (p.fixed())
      return p;
   if (d.indirect) {
      p.indirect_words = d.index_size == VLG_INDEX_SIZE_NONE ? 4 : 5;
      p.have_indirect = read_words(vram, d.indirect, p.indirect_words, p.indirect);
   }
   p.have_pipe = read_words(vram, d.pipe_state, VLG_PIPE_STATE_LENGTH, p.pipe_words);

   read_block_array(vram, d.vertex_elements, d.num_vertex_elements, p.elems);
   read_block_array(vram, d.vertex_buffers, d.num_vertex_buffers, p.bufs);
   const uint64_t tex_addr[3] = {d.vs_textures, d.fs_textures, d.gs_textures};
   const uint64_t smp_addr[3] = {d.vs_samplers, d.fs_samplers, d.gs_samplers};
   const unsigned ntex[3] = {d.vs_num_textures, d.fs_num_textures, d.gs_num_textures};
   const unsigned nsmp[3] = {d.vs_num_samplers, d.fs_num_samplers, d.gs_num_samplers};
   const uint64_t sh_addr[3] = {d.vs, d.fs, d.gs};
   for (unsigned s = 0; s < p.stages(); s++) {
      read_block_array(vram, tex_addr[s], ntex[s], p.tex[s]);
      read_block_array(vram, smp_addr[s], nsmp[s], p.smp[s]);
      auto &sh = p.sh[s];
      sh.read(vram, sh_addr[s]);
      if (sh.ok) {
         /* at most the VLG_NUM_BUFFERS slots LDB has; a larger count is
          * printed as it is in [vs]/[fs] and the GPU faults on it */
         read_block_array(vram, sh.v.buffers,
                          std::min(unsigned(sh.v.num_buffers), unsigned(VLG_NUM_BUFFERS)),
                          p.ubos[s]);
      }
   }
   if (d.stream_output) {
      p.have_so = true;
      if ((p.so_ok = read_words(vram, d.stream_output, VLG_STREAM_OUTPUT_LENGTH, p.so_words)))
         VLG_STREAM_OUTPUT_unpack(p.so_words, &p.so);
   }
   return p;
}

/** Byte range [begin, end) relative to a buffer's address. */
struct Range {
   bool valid = false;
   int64_t begin = 0, end = 0;
   void add(int64_t b, int64_t e)
   {
      if (e <= b)
         return;
      if (!valid)
         begin = b, end = e, valid = true;
      else
         begin = std::min(begin, b), end = std::max(end, e);
   }
};

/** The index bytes the draw reads (relative to index_buffer) and the vertex
 *  ids it fetches, as the GE does (geometry.cpp ge_fetch_index). */
struct VertexUse {
   Range index_bytes;
   bool have_vid = false;
   int64_t vmin = 0, vmax = 0;
};

VertexUse
vertex_use(const Vram &vram, const VLG_DRAW_INFO &d)
{
   VertexUse u;
   if (d.count == 0)
      return u;
   if (d.index_size == VLG_INDEX_SIZE_NONE) {
      u.have_vid = true;
      u.vmin = int64_t(d.start);
      u.vmax = int64_t(d.start) + int64_t(d.count) - 1;
      return u;
   }
   const unsigned isz = unsigned(d.index_size);
   for (uint32_t i = 0; i < d.count; i++) {
      const uint64_t off = (uint64_t(d.start) + i) * isz;
      if (off + isz > d.index_buffer_size || !vram.contains(d.index_buffer + off, isz))
         break; /* the GE faults here */
      u.index_bytes.add(int64_t(off), int64_t(off + isz));
      uint32_t idx = 0;
      std::memcpy(&idx, vram.data() + d.index_buffer + off, isz);
      if (d.primitive_restart && idx == d.restart_index)
         continue;
      const int64_t v = int64_t(idx) + int64_t(int32_t(d.base_vertex));
      if (!u.have_vid)
         u.vmin = u.vmax = v, u.have_vid = true;
      u.vmin = std::min(u.vmin, v);
      u.vmax = std::max(u.vmax, v);
   }
   return u;
}

/** A VRAM byte range written into a hex-dump file, and what it is. */
struct HexRange {
   uint64_t addr = 0, bytes = 0;
   std::string what; /**< "buffer bytes [offset, size)", "filled_size word" */
   HexComment comment = HexComment::Float32; /**< how the lines are commented */
};

} // namespace

struct DrawDumpWriter::State {
   RawPackage pkg;
   std::vector<std::string> notes;
   std::vector<std::vector<HexRange>> so; /**< so_ranges() before the draw */
   std::vector<HexRange> occlusion;       /**< draw_info.occlusion_counter, if set */
};

DrawDumpWriter::DrawDumpWriter(std::string dir, const DumpDrawInfo &info, const DrawContext &ctx,
                               const Config &cfg)
    : dir_(std::move(dir)), info_(info), ctx_(ctx), cfg_(cfg), st_(std::make_unique<State>())
{
   std::error_code ec;
   std::filesystem::create_directories(dir_, ec);
   if (ec)
      throw DumpError(fmt::format("{}: cannot create the dump directory: {}", dir_, ec.message()));
}

DrawDumpWriter::~DrawDumpWriter() = default;

namespace {

std::string
path_in(const std::string &dir, const std::string &file)
{
   return (std::filesystem::path(dir) / file).string();
}

/**
 * Dump the w x h image at @addr (rows @pitch bytes apart) of @format as
 * BASE.png (exact formats) or BASE.bin + BASE.png (preview). Returns a
 * one-line description for draw.txt, or the reason it was left out.
 */
std::string
dump_image(const std::string &dir, const std::string &base, const Vram &vram, uint64_t addr,
           uint64_t pitch, uint32_t format, unsigned w, unsigned h, std::vector<std::string> &notes)
{
   const ImageCodec c = image_codec(format);
   const uint64_t row = uint64_t(w) * c.bpp;
   const uint64_t extent = rows_extent(pitch, row, h);
   if (c.bpp == 0 || w == 0 || h == 0)
      return fmt::format("{}: empty or format without pixels, not dumped", base);
   if (pitch < row || !vram.contains(addr, extent) || extent > kMaxDumpBytes) {
      std::string why = fmt::format("{}: {}x{} pixels of {} at 0x{:x} (pitch {}) are outside "
                                    "VRAM or too large, not dumped",
                                    base, w, h, name_or(vlg_format_name(format)), addr, pitch);
      notes.push_back(why);
      return why;
   }
   const uint8_t *src = vram.data() + addr;
   if (c.supported) {
      const std::vector<uint8_t> px = image_to_png_pixels(c, src, pitch, w, h);
      write_png(path_in(dir, base + ".png"), w, h, c.channels, px.data());
   }
   if (!c.exact) {
      std::vector<uint8_t> raw(size_t(row) * h);
      for (unsigned y = 0; y < h; y++)
         std::memcpy(&raw[size_t(y) * row], src + uint64_t(y) * pitch, row);
      write_file(path_in(dir, base + ".bin"), raw.data(), raw.size());
      return fmt::format("{}.bin (raw, authoritative){}", base,
                         c.supported ? fmt::format(" + {}.png (preview)", base) : "");
   }
   return base + ".png";
}

/**
 * The framebuffer's colour buffers, depth/stencil buffer and (RESOLVE) the
 * resolve destination as rt<i>@suffix, zs@suffix, resolve@suffix; 4-sample
 * surfaces as images 4 x width wide (dump_common.h surface_image).
 */
void
dump_surfaces(const std::string &dir, const RawPackage &p, const Vram &vram,
              const std::string &suffix, std::vector<std::string> &notes)
{
   auto one = [&](const std::string &base, const VLG_SURFACE &s, unsigned samples) {
      if (s.format == VLG_FORMAT_NONE)
         return;
      const VLG_SURFACE v = surface_image(s, samples);
      dump_image(dir, base + suffix, vram, v.address, v.pitch, v.format, v.width, v.height, notes);
   };
   if (p.have_fb) {
      for (unsigned i = 0; i < std::min<unsigned>(p.fb.nr_cbufs, kMaxColorBufs); i++)
         one(fmt::format("rt{}", i), p.fb.cbufs[i], p.fb.samples);
      one("zs", p.fb.zsbuf, p.fb.samples);
   }
   if (p.have_resolve)
      one("resolve", p.resolve, 1);
}

/**
 * Write @ranges of @vram into DIR/@file as one hex dump (absolute
 * addresses, so the reader needs nothing else), after the comment @head.
 * A range outside VRAM or larger than kMaxDumpBytes is left out and named
 * in @notes. Returns "FILE (what [a, b), ...)" for draw.txt, "" when no
 * range was written (the file is then not created).
 */
std::string
write_hex_ranges(const std::string &dir, const std::string &file, const std::string &head,
                 const std::vector<HexRange> &ranges, const Vram &vram,
                 std::vector<std::string> &notes)
{
   std::string text = head, listed;
   for (const HexRange &r : ranges) {
      if (r.bytes == 0)
         continue;
      if (!vram.contains(r.addr, r.bytes) || r.bytes > kMaxDumpBytes) {
         notes.push_back(fmt::format("{}: the {} ({} bytes at 0x{:x}) is outside VRAM or too "
                                     "large, not dumped",
                                     file, r.what, r.bytes, r.addr));
         continue;
      }
      text += fmt::format("# {}: [0x{:x}, 0x{:x})\n", r.what, r.addr, r.addr + r.bytes);
      text += hexdump(r.addr, vram.data() + r.addr, r.bytes, r.comment);
      listed += fmt::format("{}{} [0x{:x}, 0x{:x})", listed.empty() ? "" : ", ", r.what, r.addr,
                            r.addr + r.bytes);
   }
   if (listed.empty())
      return {};
   write_text(path_in(dir, file), text);
   return fmt::format("{} ({})", file, listed);
}

/** Stream-output data file of buffer @i: "so0.hex"; "-after" for the state
 *  after the draw. */
std::string
so_file(unsigned i, bool after)
{
   return fmt::format("so{}{}.hex", i, after ? "-after" : "");
}

/**
 * The bytes a draw's stream output can touch, per enabled so_buffer: the
 * buffer from the start offset (offset, or when append the value at
 * filled_size) to its size, and the filled_size word; the counters of the
 * primitive queries as entry 4. Read before the draw (the start offset is
 * what the draw starts from) and reused for the state after it.
 */
std::vector<std::vector<HexRange>>
so_ranges(const VLG_STREAM_OUTPUT &so, const Vram &vram)
{
   std::vector<std::vector<HexRange>> r(5);
   for (unsigned i = 0; i < 4; i++) {
      const VLG_SO_BUFFER &b = so.buffers[i];
      if (!b.enable)
         continue;
      uint64_t start = b.offset;
      if (b.append && b.filled_size % 4 == 0 && vram.contains(b.filled_size, 4)) {
         uint32_t v = 0;
         std::memcpy(&v, vram.data() + b.filled_size, 4);
         start = v;
      }
      if (start < b.size)
         r[i].push_back(HexRange{b.address + start, b.size - start,
                                 fmt::format("so_buffer {} bytes [{}, {})", i, start, b.size)});
      r[i].push_back(HexRange{b.filled_size, 4,
                              fmt::format("so_buffer {} filled_size word (a byte offset)", i),
                              HexComment::Index32});
   }
   if (so.num_counters)
      r[4].push_back(HexRange{so.counters, uint64_t(so.num_counters) * 16,
                              fmt::format("{} counter pairs (64-bit primitives generated, "
                                          "written; comments show 32-bit halves)",
                                          unsigned(so.num_counters)),
                              HexComment::Index32});
   return r;
}

constexpr const char *kSoCountersFile = "so-counters.hex";
constexpr const char *kSoCountersAfterFile = "so-counters-after.hex";
constexpr const char *kOcclusionFile = "occlusion.hex";
constexpr const char *kIndirectFile = "indirect.hex";
constexpr const char *kOcclusionAfterFile = "occlusion-after.hex";

/* draw.txt as begin() builds it: the text, and the notes of what could not
 * be dumped (command.txt lists them). */
struct DrawText {
   const std::string &dir;
   uint64_t draw_number;
   std::vector<std::string> &notes;
   std::string text;

   /** A [name] section: the block @words of @info, every field by name. */
   void section(const std::string &name, const vlg_hw_struct_info &info, const uint32_t *words,
                const std::string &where)
   {
      text += fmt::format("\n[{}]  # {} ({} dwords) {}\n", name, info.name, info.length, where);
      const std::optional<ShaderIo> io = shader_io(info, words);
      text += io ? print_block_elided(info, words, *io) : print_block(info, words);
   }
   /** A comment and a note for a block that is outside VRAM or misaligned. */
   void missing(const std::string &name, const vlg_hw_struct_info &info, uint64_t addr)
   {
      const std::string n = fmt::format("[{}] not dumped: the {} block at 0x{:x} ({} dwords) is "
                                        "outside VRAM or not dword aligned",
                                        name, info.name, addr, info.length);
      text += "\n# " + n + "\n";
      notes.push_back(n);
   }
};

/** For each block i of @blocks (struct @info), the section "<@array>[i]"
 *  with the comment @where_of(i, block), or its `missing` comment where
 *  the block could not be read. */
template <typename Block, typename Where>
void
block_sections(DrawText &t, const std::vector<Block> &blocks, const std::string &array,
               const vlg_hw_struct_info &info, Where &&where_of)
{
   for (unsigned i = 0; i < blocks.size(); i++) {
      const Block &b = blocks[i];
      const std::string n = array_section(array.c_str(), i);
      if (b.ok)
         t.section(n, info, b.words, where_of(i, b));
      else
         t.missing(n, info, b.addr);
   }
}

/* draw_info (with its occlusion counter and indirect command files), the
 * pipe_state sub-blocks, the framebuffer and a RESOLVE's destination */
void
draw_info_sections(DrawText &t, const RawPackage &p, const Vram &vram, uint64_t draw_info_address,
                   std::vector<HexRange> &occlusion)
{
   const VLG_DRAW_INFO &d = p.d;
   if (!p.have_draw) {
      t.missing("draw_info", VLG_DRAW_INFO_info, draw_info_address);
   } else {
      std::string where =
         fmt::format("at VRAM 0x{:x} (command.txt cmd_draw.draw_info)", draw_info_address);
      if (!p.fixed() && d.occlusion_counter) {
         occlusion = {HexRange{d.occlusion_counter, 8,
                               "occlusion counter (64-bit samples passed; comments show "
                               "32-bit halves)",
                               HexComment::Index32}};
         const std::string data = write_hex_ranges(
            t.dir, kOcclusionFile,
            fmt::format("# occlusion query counter of draw {}, before the draw (the CP adds the "
                        "draw's passing fragments).\n",
                        t.draw_number),
            occlusion, vram, t.notes);
         if (!data.empty())
            where += "; occlusion_counter: " + data;
      }
      if (!p.fixed() && d.indirect) {
         const std::string data = write_hex_ranges(
            t.dir, kIndirectFile,
            fmt::format("# draw-indirect command of draw {} (draw_info.indirect): {} words "
                        "{{count, instance_count, start, {}start_instance}} the CP draws "
                        "instead of draw_info's fields.\n",
                        t.draw_number, p.indirect_words,
                        p.indirect_words == 5 ? "base_vertex, " : ""),
            {HexRange{d.indirect, uint64_t(p.indirect_words) * 4, "indirect command",
                      HexComment::Index32}},
            vram, t.notes);
         if (!data.empty())
            where += "; indirect: " + data;
      }
      t.section("draw_info", VLG_DRAW_INFO_info, p.draw_words, where);
      if (!p.fixed()) {
         if (p.have_pipe) {
            for (const PipeSubBlock &b : pipe_sub_blocks())
               t.section("pipe_state." + b.name, *b.info, p.pipe_words + b.offset,
                         fmt::format("at VRAM 0x{:x} = draw_info.pipe_state + {} dwords",
                                     d.pipe_state + uint64_t(b.offset) * 4, b.offset));
         } else {
            t.missing("pipe_state", VLG_PIPE_STATE_info, d.pipe_state);
         }
      }
      if (p.have_fb)
         t.section("framebuffer", VLG_FRAMEBUFFER_info, p.fb_words,
                   fmt::format("at VRAM 0x{:x} (draw_info.framebuffer)", d.framebuffer));
      else
         t.missing("framebuffer", VLG_FRAMEBUFFER_info, d.framebuffer);
      if (d.kind == VLG_DRAW_KIND_RESOLVE) {
         if (p.have_resolve)
            t.section("resolve_dst", VLG_SURFACE_info, p.resolve_words,
                      fmt::format("at VRAM 0x{:x} (draw_info.resolve_dst); pixels: "
                                  "resolve-before/-after",
                                  d.resolve_dst));
         else
            t.missing("resolve_dst", VLG_SURFACE_info, d.resolve_dst);
      }
   }
}

/* The section comment of vertex_buffers[@i] (@b), with the bytes @used of
 * it the draw fetches written to vb<i>.hex */
std::string
vertex_buffer_where(DrawText &t, const Vram &vram, unsigned i, const RawPackage::Buf &b,
                    const Range &used)
{
   const VLG_VERTEX_BUFFER &vb = b.v;
   std::string where = fmt::format("at VRAM 0x{:x}", b.addr);
   const std::string file = fmt::format("vb{}.hex", i);
   if (!used.valid)
      return where + "; no byte of it is fetched by this draw";
   const uint64_t a = vb.address + uint64_t(used.begin);
   const uint64_t n_bytes = uint64_t(used.end - used.begin);
   if (vram.contains(a, n_bytes) && n_bytes <= kMaxDumpBytes) {
      std::string text =
         fmt::format("# vertex_buffers[{}] of draw {}: VRAM 0x{:x}, size {} bytes, stride {}.\n"
                     "# The bytes this draw fetches, [0x{:x}, 0x{:x}); other bytes are not "
                     "dumped (replay leaves them 0).\n"
                     "# Each line: VRAM address: bytes (edit them); '#' comments show the "
                     "dwords as fp32.\n",
                     i, t.draw_number, vb.address, vb.size, vb.stride, a, a + n_bytes);
      text += hexdump(a, vram.data() + a, n_bytes, HexComment::Float32);
      write_text(path_in(t.dir, file), text);
      return where + fmt::format("; data: {} (bytes [0x{:x}, 0x{:x}))", file, a, a + n_bytes);
   }
   const std::string why = fmt::format("{}: the {} bytes at 0x{:x} this draw fetches are outside "
                                       "VRAM or too large, not dumped",
                                       file, n_bytes, a);
   t.notes.push_back(why);
   return where + "; " + why;
}

/* vertex elements, vertex buffers with the bytes the draw fetches, index data */
void
vertex_sections(DrawText &t, const RawPackage &p, const Vram &vram)
{
   const VLG_DRAW_INFO &d = p.d;
   block_sections(
      t, p.elems, "vertex_elements", VLG_VERTEX_ELEMENT_info,
      [](unsigned, const RawPackage::Elem &e) { return fmt::format("at VRAM 0x{:x}", e.addr); });

   /* vertex data: the bytes of each buffer the draw's vertex ids and
    * instances fetch (geometry.cpp: element * stride + src_offset) */
   /* an indirect draw fetches what its command in VRAM says */
   const VLG_DRAW_INFO eff = p.effective();
   const VertexUse use = vertex_use(vram, eff);
   std::vector<Range> used(p.bufs.size());
   for (const auto &e : p.elems) {
      if (!e.ok || e.v.vertex_buffer_index >= p.bufs.size() || !p.bufs[e.v.vertex_buffer_index].ok)
         continue;
      const VLG_VERTEX_BUFFER &vb = p.bufs[e.v.vertex_buffer_index].v;
      const int64_t bytes = vlg_format_bytes(e.v.format);
      int64_t lo, hi;
      if (e.v.instance_divisor) {
         if (eff.instance_count == 0)
            continue;
         lo = int64_t(eff.start_instance);
         hi = lo + int64_t((eff.instance_count - 1) / e.v.instance_divisor);
      } else {
         if (!use.have_vid)
            continue;
         lo = use.vmin, hi = use.vmax;
      }
      int64_t b = lo * int64_t(vb.stride) + e.v.src_offset;
      int64_t en = hi * int64_t(vb.stride) + e.v.src_offset + bytes;
      b = std::max<int64_t>(b, 0);
      en = std::min<int64_t>(en, int64_t(vb.size));
      used[e.v.vertex_buffer_index].add(b, en);
   }
   block_sections(t, p.bufs, "vertex_buffers", VLG_VERTEX_BUFFER_info,
                  [&](unsigned i, const RawPackage::Buf &b) {
                     return vertex_buffer_where(t, vram, i, b, used[i]);
                  });

   /* index data */
   if (d.index_size != VLG_INDEX_SIZE_NONE && use.index_bytes.valid) {
      const uint64_t a = d.index_buffer + uint64_t(use.index_bytes.begin);
      const uint64_t n = uint64_t(use.index_bytes.end - use.index_bytes.begin);
      if (n <= kMaxDumpBytes) {
         const HexComment hc = d.index_size == VLG_INDEX_SIZE_U8    ? HexComment::Index8
                               : d.index_size == VLG_INDEX_SIZE_U16 ? HexComment::Index16
                                                                    : HexComment::Index32;
         std::string text =
            fmt::format("# index buffer of draw {}: VRAM 0x{:x}, {} bytes, {} indices of {} "
                        "bytes from index {}.\n"
                        "# The bytes this draw reads, [0x{:x}, 0x{:x}); '#' comments show "
                        "the indices.\n",
                        t.draw_number, d.index_buffer, d.index_buffer_size, eff.count,
                        unsigned(d.index_size), eff.start, a, a + n);
         text += hexdump(a, vram.data() + a, n, hc);
         write_text(path_in(t.dir, "index.hex"), text);
      }
   }
}

/* The section comment of texture @i (@tx) of stage @s, with its texels
 * written as images (one per level and layer) */
std::string
texture_where(DrawText &t, const Vram &vram, unsigned s, unsigned i, const RawPackage::Tex &tx)
{
   std::string where = fmt::format("at VRAM 0x{:x}; texels:", tx.addr);
   const unsigned levels = std::min(unsigned(tx.v.num_levels), 15u);
   for (unsigned l = 0; l < levels; l++) {
      const TexLevel lv = texture_level_size(tx.v, l);
      for (unsigned z = 0; z < lv.layers; z++) {
         const uint64_t addr =
            tx.v.address + tx.v.level[l].offset + uint64_t(z) * tx.v.level[l].layer_stride;
         where += "\n#   " + dump_image(t.dir, texture_file_base(kStage[s], i, l, z), vram, addr,
                                        tx.v.level[l].row_pitch, tx.v.format, lv.width, lv.height,
                                        t.notes);
      }
   }
   return where;
}

/* texture descriptors with their texels (PNG), sampler descriptors */
void
texture_sections(DrawText &t, const RawPackage &p, const Vram &vram)
{
   for (unsigned s = 0; s < p.stages(); s++) {
      block_sections(
         t, p.tex[s], fmt::format("{}_textures", kStage[s]), VLG_TEXTURE_info,
         [&](unsigned i, const RawPackage::Tex &tx) { return texture_where(t, vram, s, i, tx); });
      block_sections(
         t, p.smp[s], fmt::format("{}_samplers", kStage[s]), VLG_SAMPLER_info,
         [](unsigned, const RawPackage::Smp &m) { return fmt::format("at VRAM 0x{:x}", m.addr); });
   }
}

/* shaders: shader_state, code as disassembly, global-buffer image */
void
shader_sections(DrawText &t, const RawPackage &p, const Vram &vram)
{
   for (unsigned s = 0; s < p.stages(); s++) {
      const auto &sh = p.sh[s];
      const char *stage = kStage[s];
      if (!sh.ok) {
         t.missing(stage, VLG_SHADER_STATE_info, sh.addr);
         continue;
      }
      const VLG_SHADER_STATE &ss = sh.v;
      std::string where = fmt::format("at VRAM 0x{:x} (draw_info.{});", sh.addr, stage);
      const uint64_t code_bytes = uint64_t(ss.code_size) * 4;
      if (ss.code % 4 == 0 && ss.code_size <= uint32_t(VLG_MAX_PROGRAM_UNITS) &&
          vram.contains(ss.code, code_bytes)) {
         std::vector<uint32_t> units(ss.code_size);
         std::memcpy(units.data(), vram.data() + ss.code, code_bytes);
         std::string text, error;
         const bool ok = disassemble(units.data(), units.size(), text, error);
         bool exact = false;
         if (ok) {
            std::vector<uint32_t> back;
            std::string aerr;
            exact = assemble(text, "check", back, aerr) && back == units;
         }
         const std::string file = fmt::format("{}.s", stage);
         std::string head = fmt::format(
            "; {} shader of draw {}: {} units ({} bytes) at VRAM 0x{:x}, entry unit {}.\n"
            "; Canonical VL-IW assembly (docs/isa.md section 7); each instruction's comment "
            "is its unit\n"
            "; address and units in hex. Edit and replay: the file is assembled again and "
            "{}.code_size\n"
            "; follows the new size (docs/dump.md).\n",
            kStageName[s], t.draw_number, ss.code_size, code_bytes, ss.code, ss.entry, stage);
         if (!exact) {
            write_file(path_in(t.dir, fmt::format("{}.bin", stage)), units.data(), code_bytes);
            head += fmt::format("; {}.bin holds the binary exactly ({}); it is used while "
                                "this file is unedited.\n",
                                stage,
                                ok ? "this text assembles to a different encoding"
                                   : "the binary does not disassemble: " + error);
            where += fmt::format(" code: {} + {}.bin", file, stage);
         } else {
            where += fmt::format(" code: {}", file);
         }
         write_text(path_in(t.dir, file), head + text);
      } else {
         const std::string why =
            fmt::format("{}.s: code at 0x{:x} ({} units) is misaligned, outside VRAM or "
                        "larger than {} units, not dumped",
                        stage, ss.code, ss.code_size, uint32_t(VLG_MAX_PROGRAM_UNITS));
         t.notes.push_back(why);
         where += " " + why;
      }
      const unsigned nconsts = std::min(ss.num_consts, 512u);
      if (nconsts == 0) {
         write_text(path_in(t.dir, fmt::format("consts-{}.txt", stage)),
                    fmt::format("# global buffer of the {} shader of draw {}: empty "
                                "(num_consts = 0). Add lines 'C<n> = w0 w1 w2 w3' to fill "
                                "it.\n",
                                stage, t.draw_number));
      } else if (vram.contains(ss.consts, uint64_t(nconsts) * 16)) {
         std::vector<uint32_t> w(size_t(nconsts) * 4);
         std::memcpy(w.data(), vram.data() + ss.consts, w.size() * 4);
         std::string text = fmt::format(
            "# global buffer of the {} shader of draw {}: {} vec4 entries at VRAM 0x{:x}.\n"
            "# One entry per line: C<n> = four 32-bit words, raw bits in hex; edit a word as "
            "hex bits\n"
            "# or write a float (1.5, -0, 1e-3, inf). '#' comments show the words as fp32.\n",
            stage, t.draw_number, nconsts, ss.consts);
         write_text(path_in(t.dir, fmt::format("consts-{}.txt", stage)),
                    text + consts_text(w.data(), nconsts));
         where += fmt::format(" consts: consts-{}.txt", stage);
      } else {
         const std::string why = fmt::format("consts-{}.txt: {} entries at 0x{:x} are outside "
                                             "VRAM, not dumped",
                                             stage, nconsts, ss.consts);
         t.notes.push_back(why);
         where += " " + why;
      }
      t.section(stage, VLG_SHADER_STATE_info, sh.words, where);
   }
}

/* uniform buffers (LDB slots of shader_state.buffers) and their bytes */
void
buffer_sections(DrawText &t, const RawPackage &p, const Vram &vram)
{
   for (unsigned s = 0; s < p.stages(); s++) {
      block_sections(
         t, p.ubos[s], fmt::format("{}_buffers", kStage[s]), VLG_BUFFER_info,
         [&](unsigned i, const RawPackage::Ubo &u) {
            const std::string data = write_hex_ranges(
               t.dir, fmt::format("{}-buffer{}.hex", kStage[s], i),
               fmt::format("# {}_buffers[{}] of draw {}: the bytes LDB slot B{} of the {} "
                           "shader reads.\n"
                           "# Each line: VRAM address: bytes (edit them); '#' comments show "
                           "the dwords as fp32.\n",
                           kStage[s], i, t.draw_number, i, kStageName[s]),
               {HexRange{u.v.address, u.v.size, "buffer bytes"}}, vram, t.notes);
            return fmt::format("at VRAM 0x{:x} ({}.buffers + {})", u.addr, kStage[s], i) +
                   (data.empty() ? "; unbound or empty" : "; data: " + data);
         });
   }
}

/* stream output: the block, the buffers from where the draw starts writing,
 * their filled_size words and the query counters (@so: the ranges dumped,
 * for finish()) */
void
stream_output_section(DrawText &t, const RawPackage &p, const Vram &vram,
                      std::vector<std::vector<HexRange>> &so)
{
   const VLG_DRAW_INFO &d = p.d;
   if (p.have_so && !p.so_ok) {
      t.missing("stream_output", VLG_STREAM_OUTPUT_info, d.stream_output);
   } else if (p.have_so) {
      so = so_ranges(p.so, vram);
      std::string where = fmt::format("at VRAM 0x{:x} (draw_info.stream_output)", d.stream_output);
      for (unsigned i = 0; i < 5; i++) {
         const std::string file = i < 4 ? so_file(i, false) : kSoCountersFile;
         const std::string data = write_hex_ranges(
            t.dir, file,
            fmt::format("# stream output of draw {}, before the draw: {}.\n"
                        "# Each line: VRAM address: bytes (edit them); '#' comments show "
                        "the dwords as fp32.\n",
                        t.draw_number, i < 4 ? fmt::format("so_buffer {}", i) : "query counters"),
            so[i], vram, t.notes);
         if (!data.empty())
            where += "\n#   " + data;
      }
      t.section("stream_output", VLG_STREAM_OUTPUT_info, p.so_words, where);
   }
}

/* command.txt: the command queue around the DRAW, the notes, the DRAW itself */
std::string
command_text(const DrawContext &ctx, const DumpDrawInfo &info, const Vram &vram,
             const std::vector<std::string> &notes)
{
   std::string cmd = fmt::format(
      "# vlgpu per-draw dump (docs/dump.md): the command part of draw {} of the device\n"
      "# (submit {}, DRAW command {} of its queue, {} mode).\n"
      "# Command queue at VRAM 0x{:x}, {} dwords; this DRAW is at dword offset {} (VRAM "
      "0x{:x}):\n",
      info.draw_number, info.submit, ctx.index_in_queue, gpu_mode_name(info.mode),
      ctx.queue_address, ctx.queue_dwords, ctx.cmd_offset_dw,
      ctx.queue_address + uint64_t(ctx.cmd_offset_dw) * 4);
   if (vram.contains(ctx.queue_address, uint64_t(ctx.queue_dwords) * 4)) {
      const uint32_t *q = reinterpret_cast<const uint32_t *>(vram.data() + ctx.queue_address);
      uint32_t off = 0;
      unsigned listed = 0;
      while (off < ctx.queue_dwords && listed < 1000) {
         uint32_t len = 0;
         const std::string what = describe_command(q + off, ctx.queue_dwords - off, len);
         cmd += fmt::format("#   {:5}: {}{}\n", off, what,
                            off == ctx.cmd_offset_dw ? "   <- this draw" : "");
         listed++;
         if (len == 0 || len > ctx.queue_dwords - off || !vlg_cmd_opcode_name(q[off] & 0xff))
            break;
         if ((q[off] & 0xff) == VLG_CMD_OPCODE_HALT)
            break;
         off += len;
      }
   }
   if (!notes.empty()) {
      cmd += "# Notes (parts of the package that could not be dumped):\n";
      for (const std::string &n : notes)
         cmd += "#   " + n + "\n";
   }
   cmd += "# Replay: ./vlgpu replay DIR [--mode functional|cycle] [-o OUT]. Editing draw_info "
          "below makes\n# replay run the draw_info block at that address.\n";
   cmd += fmt::format("\n[cmd_draw]  # at VRAM 0x{:x}\n",
                      ctx.queue_address + uint64_t(ctx.cmd_offset_dw) * 4);
   cmd += print_block(VLG_CMD_DRAW_info, ctx.cmd_words);
   return cmd;
}

} // namespace

void
DrawDumpWriter::begin(const Vram &vram)
{
   State &st = *st_;
   st.pkg = read_package(vram, ctx_.draw_info_address);
   const RawPackage &p = st.pkg;

   DrawText t{dir_, info_.draw_number, st.notes, {}};
   t.text = fmt::format("# vlgpu per-draw dump (docs/dump.md): the draw part of draw {}.\n"
                        "# Every block of the package, every field by name (docs/hw.md). A "
                        "[section] is the block a\n"
                        "# draw_info pointer names (pipe_state is split into its sub-blocks); "
                        "edit values and replay\n"
                        "# with ./vlgpu replay {}\n",
                        info_.draw_number, dir_);
   draw_info_sections(t, p, vram, ctx_.draw_info_address, st.occlusion);
   if (p.have_draw && !p.fixed()) {
      vertex_sections(t, p, vram);
      texture_sections(t, p, vram);
      shader_sections(t, p, vram);
      buffer_sections(t, p, vram);
      stream_output_section(t, p, vram, st.so);
   }
   write_text(path_in(dir_, kDrawFile), t.text);

   /* render targets and depth/stencil before the draw */
   dump_surfaces(dir_, p, vram, "-before", st.notes);

   try {
      cfg_.write_json(path_in(dir_, "config.json"));
   } catch (const ConfigError &e) {
      throw DumpError(e.what());
   }

   /* command.txt last: it lists the notes */
   write_text(path_in(dir_, kCommandFile), command_text(ctx_, info_, vram, st.notes));
}

void
DrawDumpWriter::finish(const Vram &vram, const DrawReport &report)
{
   State &st = *st_;
   const RawPackage &p = st.pkg;
   std::vector<std::string> notes;
   dump_surfaces(dir_, p, vram, "-after", notes);
   if (!st.occlusion.empty())
      write_hex_ranges(dir_, kOcclusionAfterFile,
                       fmt::format("# occlusion query counter of draw {}, after the draw "
                                   "(replay compares with this file).\n",
                                   info_.draw_number),
                       st.occlusion, vram, notes);
   /* stream output after the draw: the same ranges as before it */
   for (unsigned i = 0; i < st.so.size(); i++)
      write_hex_ranges(dir_, i < 4 ? so_file(i, true) : kSoCountersAfterFile,
                       fmt::format("# stream output of draw {}, after the draw: {} (replay "
                                   "compares with this file).\n",
                                   info_.draw_number,
                                   i < 4 ? fmt::format("so_buffer {}", i) : "query counters"),
                       st.so[i], vram, notes);
   nlohmann::ordered_json j;
   j["draw"] = info_.draw_number;
   j["submit"] = info_.submit;
   j["mode"] = gpu_mode_name(info_.mode);
   j["report"] = draw_report_json(report);
   const std::string js = j.dump(2) + "\n";
   write_text(path_in(dir_, "stats.json"), js);
   if (report.faulted)
      write_text(path_in(dir_, "fault.txt"),
                 fmt::format("draw {} faulted:\n{}\n", info_.draw_number, report.fault));
}

} // namespace vlgpu::sim
