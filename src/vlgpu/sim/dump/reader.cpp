/*
 * vlgpu simulator, per-draw dump: the reader and replay (see dump.h,
 * docs/dump.md).
 *
 * The loader turns the files of a draw directory into VRAM segments at the
 * addresses the (possibly edited) draw.txt names, patches the sizes that
 * follow from edited data files (a shader's code_size, its num_consts),
 * moves grown data above everything else, and writes the segments into a
 * fresh VRAM. Replay then runs a two-command queue, DRAW + HALT, on the GPU.
 */
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/dump/dump.h"
#include "sim/dump/dump_common.h"
#include "sim/dump/hexdump.h"
#include "sim/dump/image.h"
#include "sim/dump/shader_text.h"
#include "vlg_limits.h"

namespace vlgpu::sim {

using namespace dump;

namespace {

namespace fs = std::filesystem;

std::string
name_or_number(const char *name, uint32_t value)
{
   return name ? std::string(name) : fmt::format("{}", value);
}

/** One [section] of a text file. */
struct Section {
   std::string name;
   unsigned header_line = 0;
   std::vector<std::pair<unsigned, std::string>> lines; /* (line number, text) */
   unsigned end_line = 0;
};

std::string
trim(const std::string &s)
{
   size_t b = 0, e = s.size();
   while (b < e && (s[b] == ' ' || s[b] == '\t'))
      b++;
   while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
      e--;
   return s.substr(b, e - b);
}

[[noreturn]] void
fail(const std::vector<std::string> &errors)
{
   std::string m;
   for (const std::string &e : errors)
      m += (m.empty() ? "" : "\n") + e;
   throw DumpError(m);
}

/** Split @text into sections; text before the first section must be
 *  comments or blank. */
std::vector<Section>
split_sections(const std::string &text, const std::string &file)
{
   std::vector<Section> out;
   std::vector<std::string> errors;
   std::istringstream in(text);
   std::string line;
   unsigned no = 0;
   while (std::getline(in, line)) {
      no++;
      const std::string t = trim(line);
      if (!t.empty() && t[0] == '[') {
         /* "[name]" with an optional "# comment"; names may contain brackets
          * ("[vertex_elements[0]]"), so the header ends at the last ']' */
         const size_t hash = t.find('#');
         const std::string head = trim(t.substr(0, hash));
         if (head.size() < 3 || head.back() != ']') {
            errors.push_back(fmt::format("{}:{}: malformed section header '{}' (expected "
                                         "'[name]')",
                                         file, no, t));
            continue;
         }
         const size_t close = head.size() - 1;
         if (!out.empty())
            out.back().end_line = no - 1;
         Section s;
         s.name = trim(head.substr(1, close - 1));
         s.header_line = no;
         out.push_back(std::move(s));
         continue;
      }
      if (out.empty()) {
         if (!t.empty() && t[0] != '#')
            errors.push_back(fmt::format("{}:{}: '{}' is outside any [section]", file, no, t));
         continue;
      }
      out.back().lines.emplace_back(no, line);
   }
   if (!out.empty())
      out.back().end_line = no;
   if (!errors.empty())
      fail(errors);
   return out;
}

struct DiagSink {
   std::vector<std::string> *errors;
   std::vector<std::string> *warnings;
};

void
diag_cb(void *user, const char *message)
{
   DiagSink *d = static_cast<DiagSink *>(user);
   if (std::strstr(message, ": warning: "))
      d->warnings->push_back(message);
   else
      d->errors->push_back(message);
}

/** Parse one section as struct @info into @words (info.length dwords). */
void
parse_section(const Section &s, const vlg_hw_struct_info &info, const std::string &file,
              uint32_t *words, std::vector<std::string> &errors, std::vector<std::string> &notes)
{
   std::vector<std::string> warnings;
   DiagSink sink{&errors, &warnings};
   vlg_hw_parser *p = vlg_hw_parser_create(&info, file.c_str(), diag_cb, &sink);
   if (!p)
      throw std::bad_alloc();
   for (const auto &[no, text] : s.lines)
      vlg_hw_parser_line(p, no, text.data(), text.size());
   vlg_hw_parser_finish(p, s.end_line ? s.end_line : s.header_line, words, nullptr);
   for (std::string &w : warnings)
      notes.push_back(std::move(w));
}

/** Name of the field a text line sets, "" for comments and blank lines. */
std::string
line_field(const std::string &line)
{
   const std::string t = trim(line);
   if (t.empty() || t[0] == '#')
      return {};
   return trim(t.substr(0, t.find('=')));
}

/**
 * Parse a section of a block with 64-entry I/O arrays (@info: shader_state
 * or stream_output, dump_common.h shader_io): unused entries that draw.txt
 * leaves out (dump_common.h shader_io_unused, beyond num_inputs and
 * num_outputs of the block as written) get their defaults without
 * warnings; every other missing field is still reported.
 */
void
parse_elided_section(const Section &s, const vlg_hw_struct_info &info, const std::string &file,
                     uint32_t *words, std::vector<std::string> &errors,
                     std::vector<std::string> &notes)
{
   /* first pass: num_inputs / num_outputs as written (diagnostics dropped) */
   std::vector<std::string> e0, n0;
   std::vector<uint32_t> tmp(info.length);
   parse_section(s, info, file, tmp.data(), e0, n0);
   const ShaderIo io = shader_io(info, tmp.data()).value();
   std::set<std::string> present;
   for (const auto &l : s.lines)
      present.insert(line_field(l.second));
   Section full = s;
   const unsigned at = s.end_line ? s.end_line : s.header_line;
   for (unsigned i = 0; i < info.num_fields; i++) {
      const vlg_hw_field_info &f = info.fields[i];
      if (present.count(f.name) || !shader_io_unused(f, io.num_inputs, io.num_outputs))
         continue;
      char value[64];
      vlg_hw_format_value(&f, f.default_raw, value, sizeof(value));
      full.lines.emplace_back(at, fmt::format("{} = {}", f.name, value));
   }
   parse_section(full, info, file, words, errors, notes);
}

/** A run of bytes to write into the replay VRAM, with its origin. */
struct Piece {
   uint64_t address;
   std::vector<uint8_t> bytes;
   std::string origin;
};

struct Loader {
   std::string dir;
   uint64_t vram_size = UINT64_MAX; /**< vram.size_bytes of the replay */
   std::vector<std::string> notes;
   std::vector<Piece> pieces;
   uint64_t piece_bytes = 0; /**< sum of the pieces' sizes */

   std::string path(const std::string &f) const { return (fs::path(dir) / f).string(); }
   bool exists(const std::string &f) const { return fs::exists(path(f)); }

   /** "DIR/file:line" (@line 0: "DIR/file"). */
   std::string where(const std::string &origin, unsigned line) const
   {
      return line ? fmt::format("{}:{}", path(origin), line) : path(origin);
   }

   /**
    * @size bytes at VRAM @addr from file @origin (line @line of it, 0 when
    * not a text line). Every byte must lie inside the replay VRAM, checked
    * before the bytes are copied; all pieces together hold at most twice
    * vram.size_bytes (bytes that several files hold, such as a buffer that
    * is a vertex buffer and a stream-output target, count each time), so
    * the loader never holds more than a bounded multiple of the VRAM it
    * fills. @throws DumpError naming the file and line.
    */
   void add(uint64_t addr, const void *data, size_t size, std::string origin, unsigned line = 0)
   {
      if (!size)
         return;
      if (addr > UINT64_MAX - size || addr + size > vram_size)
         throw DumpError(fmt::format("{}: {} bytes at 0x{:x} run past the end of the replay VRAM "
                                     "(vram.size_bytes = 0x{:x}); replay with --set "
                                     "vram.size_bytes=...",
                                     where(origin, line), size, addr, vram_size));
      if (size > 2 * vram_size - std::min(piece_bytes, 2 * vram_size))
         throw DumpError(fmt::format("{}: the dump's files hold more than twice vram.size_bytes "
                                     "(0x{:x}) bytes; several files describe the same VRAM over "
                                     "and over",
                                     where(origin, line), vram_size));
      piece_bytes += size;
      Piece p{addr, std::vector<uint8_t>(size), std::move(origin)};
      std::memcpy(p.bytes.data(), data, size);
      pieces.push_back(std::move(p));
   }

   /** Every segment of hex dump @f (absolute addresses). */
   void add_hex_file(const std::string &f)
   {
      for (const Segment &sg : parse_hexdump(read_text(path(f)), path(f)))
         add(sg.address, sg.bytes.data(), sg.bytes.size(), f, sg.line);
   }

   /**
    * Two pieces that hold the same VRAM bytes must agree (a uniform buffer
    * read by both shaders is in vs-buffer1.hex and fs-buffer1.hex; a
    * buffer can be a vertex buffer and a stream-output target): an edit of
    * one file only is an error naming both, not a silent choice.
    * @throws DumpError listing the first conflicts.
    */
   void check_overlaps() const
   {
      std::vector<const Piece *> by_addr;
      for (const Piece &p : pieces)
         by_addr.push_back(&p);
      std::sort(by_addr.begin(), by_addr.end(),
                [](const Piece *a, const Piece *b) { return a->address < b->address; });
      std::vector<std::string> errors;
      for (size_t i = 0; i < by_addr.size() && errors.size() < 8; i++) {
         const Piece &a = *by_addr[i];
         const uint64_t a_end = a.address + a.bytes.size();
         for (size_t j = i + 1; j < by_addr.size() && by_addr[j]->address < a_end; j++) {
            const Piece &b = *by_addr[j];
            const uint64_t end = std::min(a_end, b.address + b.bytes.size());
            for (uint64_t x = b.address; x < end; x++) {
               if (a.bytes[x - a.address] == b.bytes[x - b.address])
                  continue;
               errors.push_back(fmt::format(
                  "{}: VRAM 0x{:x} is 0x{:02x} here but 0x{:02x} in {} (both files hold the "
                  "bytes [0x{:x}, 0x{:x}): edit them alike)",
                  path(b.origin), x, b.bytes[x - b.address], a.bytes[x - a.address], path(a.origin),
                  b.address, end));
               break;
            }
         }
      }
      if (!errors.empty())
         fail(errors);
   }

   uint64_t end_address() const
   {
      uint64_t e = 0;
      for (const Piece &p : pieces)
         e = std::max(e, p.address + p.bytes.size());
      return e;
   }

   /**
    * Image @base of w x h pixels of @format, rows packed: BASE.png for an
    * exact format, else BASE.bin (checking that BASE.png, if present, is
    * still its preview). std::nullopt when the files do not exist.
    */
   std::optional<std::vector<uint8_t>> load_image(const std::string &base, uint32_t format,
                                                  unsigned w, unsigned h) const
   {
      const ImageCodec c = image_codec(format);
      const std::string png = base + ".png", bin = base + ".bin";
      const char *fname = vlg_format_name(format);
      const std::string fmtname = fname ? fname : fmt::format("format {}", format);
      const uint64_t want = uint64_t(w) * h * c.bpp;
      if (want > vram_size) /* before anything the size asks for is allocated */
         throw DumpError(fmt::format("{}: draw.txt describes {}x{} pixels of {} ({} bytes), more "
                                     "than the replay VRAM (vram.size_bytes = {})",
                                     path(base), w, h, fmtname, want, vram_size));
      if (c.exact) {
         if (!exists(png))
            return std::nullopt;
         const PngImage img = read_png(path(png), c.channels, w, h);
         return png_pixels_to_image(c, img.pixels, w, h);
      }
      if (!exists(bin)) {
         if (exists(png))
            throw DumpError(fmt::format("{}: missing; {} is only a preview of {} pixels (PNG "
                                        "cannot hold them exactly), the .bin is the data",
                                        path(bin), png, fmtname));
         return std::nullopt;
      }
      std::vector<uint8_t> raw = read_file(path(bin), want);
      if (raw.size() != want)
         throw DumpError(fmt::format("{}: {} bytes, but {}x{} pixels of {} are {} bytes", path(bin),
                                     raw.size(), w, h, fmtname, want));
      if (c.supported && exists(png)) {
         PngImage img;
         try {
            img = read_png(path(png), c.channels, w, h);
         } catch (const DumpError &) {
            img.pixels.clear(); /* another size or unreadable: not the preview */
         }
         const std::vector<uint8_t> preview =
            image_to_png_pixels(c, raw.data(), uint64_t(w) * c.bpp, w, h);
         if (img.pixels != preview)
            throw DumpError(fmt::format(
               "{}: edited, but it is only a preview: {} pixels cannot be held exactly in PNG. "
               "Edit {} (raw pixels, rows packed) instead, or restore the preview",
               path(png), fmtname, bin));
      }
      return raw;
   }

   /** load_image() and add it as rows at @addr, @pitch bytes apart. */
   void add_image(const std::string &base, uint32_t format, unsigned w, unsigned h, uint64_t addr,
                  uint64_t pitch, const std::string &what)
   {
      const uint64_t extent = rows_extent(pitch, uint64_t(w) * vlg_format_bytes(format), h);
      if (addr > vram_size || extent > vram_size - addr)
         throw DumpError(fmt::format("{} ({}): {}x{} pixels at 0x{:x} (pitch {}) run past the end "
                                     "of the replay VRAM (vram.size_bytes = 0x{:x}); replay with "
                                     "--set vram.size_bytes=...",
                                     path(kDrawFile), what, w, h, addr, pitch, vram_size));
      const std::optional<std::vector<uint8_t>> img = load_image(base, format, w, h);
      if (!img) {
         notes.push_back(fmt::format("{}: no {}.png/.bin in the dump; left zero", what, base));
         return;
      }
      const uint64_t row = uint64_t(w) * vlg_format_bytes(format);
      if (pitch == row) {
         add(addr, img->data(), img->size(), base);
         return;
      }
      for (unsigned y = 0; y < h; y++)
         add(addr + uint64_t(y) * pitch, img->data() + size_t(y) * row, row, base);
   }
};

struct Shader {
   bool present = false;
   VLG_SHADER_STATE ss = {};
   uint64_t addr = 0;
   std::vector<uint32_t> code;
   std::vector<uint32_t> consts;
   bool move_code = false, move_consts = false;
};

const char *const kStage[3] = {"vs", "fs", "gs"}; /* gs: draws with draw_info.gs != 0 */

/** The draw's code: X.bin while X.s is unedited (same text up to comments as
 *  the disassembly of X.bin), else X.s assembled. */
std::vector<uint32_t>
load_code(Loader &L, const char *stage)
{
   const std::string s = fmt::format("{}.s", stage), bin = fmt::format("{}.bin", stage);
   const bool have_s = L.exists(s), have_bin = L.exists(bin);
   if (!have_s && !have_bin)
      throw DumpError(fmt::format("{}: missing (the {} shader's code)", L.path(s), stage));
   std::vector<uint32_t> units;
   if (have_bin) {
      const std::vector<uint8_t> raw =
         read_file(L.path(bin), uint64_t(VLG_MAX_PROGRAM_UNITS) * 4); /* the largest program */
      if (raw.size() % 4 != 0)
         throw DumpError(fmt::format("{}: {} bytes is not a whole number of 32-bit units",
                                     L.path(bin), raw.size()));
      units.resize(raw.size() / 4);
      std::memcpy(units.data(), raw.data(), raw.size());
      if (!have_s)
         return units;
      std::string regen, err;
      disassemble(units.data(), units.size(), regen, err);
      if (strip_asm_comments(regen) == strip_asm_comments(read_text(L.path(s))))
         return units;
      L.notes.push_back(fmt::format("{} was edited: assembled instead of using {}", s, bin));
   }
   std::string err;
   std::vector<uint32_t> out;
   if (!assemble(read_text(L.path(s)), L.path(s), out, err))
      throw DumpError(err);
   if (out.empty())
      throw DumpError(fmt::format("{}: the program is empty", L.path(s)));
   return out;
}

struct Loaded {
   uint32_t cmd_words[VLG_CMD_DRAW_LENGTH] = {};
   VLG_CMD_DRAW cmd = {};
   VLG_DRAW_INFO d = {};
   VLG_FRAMEBUFFER fb = {};
   bool have_fb = false;
   bool have_so = false; /**< draw_info.stream_output is set */
   VLG_STREAM_OUTPUT so = {};
   bool have_resolve = false; /**< RESOLVE: draw_info.resolve_dst's surface block */
   VLG_SURFACE resolve = {};
};

/** One surface the dump holds pixels of: "rt0" (rt0-before/-after), "zs",
 *  "resolve"; a 4-sample surface as its 4 x wide image (surface_image). */
struct SurfaceFile {
   std::string name;
   VLG_SURFACE image;
   std::string what; /**< "framebuffer.cbufs[0]" */
};

std::vector<SurfaceFile>
surface_files(const Loaded &r)
{
   std::vector<SurfaceFile> out;
   if (r.have_fb) {
      for (unsigned i = 0; i < std::min<unsigned>(r.fb.nr_cbufs, kMaxColorBufs); i++)
         if (r.fb.cbufs[i].format != VLG_FORMAT_NONE)
            out.push_back({fmt::format("rt{}", i), surface_image(r.fb.cbufs[i], r.fb.samples),
                           fmt::format("framebuffer.cbufs[{}]", i)});
      if (r.fb.zsbuf.format != VLG_FORMAT_NONE)
         out.push_back({"zs", surface_image(r.fb.zsbuf, r.fb.samples), "framebuffer.zsbuf"});
   }
   if (r.have_resolve && r.resolve.format != VLG_FORMAT_NONE)
      out.push_back({"resolve", r.resolve, "draw_info.resolve_dst"});
   return out;
}

/* command.txt: its one [cmd_draw] section, into @r.cmd_words / @r.cmd */
void
load_command(Loader &L, Loaded &r)
{
   std::vector<std::string> errors;
   const std::string file = L.path(kCommandFile);
   const std::vector<Section> secs = split_sections(read_text(file), file);
   const Section *cmd = nullptr;
   for (const Section &s : secs) {
      if (s.name != "cmd_draw")
         errors.push_back(fmt::format("{}:{}: unknown section [{}] (command.txt has one "
                                      "section, [cmd_draw])",
                                      file, s.header_line, s.name));
      else if (cmd)
         errors.push_back(fmt::format("{}:{}: second [cmd_draw] section (first at line {})", file,
                                      s.header_line, cmd->header_line));
      else
         cmd = &s;
   }
   if (!cmd && errors.empty())
      errors.push_back(fmt::format("{}: no [cmd_draw] section", file));
   if (cmd)
      parse_section(*cmd, VLG_CMD_DRAW_info, file, r.cmd_words, errors, L.notes);
   if (!errors.empty())
      fail(errors);
   VLG_CMD_DRAW_unpack(r.cmd_words, &r.cmd);
}

/* draw.txt's sections by name; need() marks one used (a missing one is an
 * error), unused() reports those the draw has no block for */
struct DrawSections {
   std::string file;
   std::vector<Section> secs;
   std::map<std::string, const Section *> by_name;
   std::set<std::string> used;
   std::vector<std::string> &errors;

   DrawSections(const std::string &f, std::vector<std::string> &errs)
       : file(f), secs(split_sections(read_text(f), f)), errors(errs)
   {
      for (const Section &s : secs) {
         auto [it, fresh] = by_name.emplace(s.name, &s);
         if (!fresh)
            errors.push_back(fmt::format("{}:{}: section [{}] appears twice (first at line {})",
                                         file, s.header_line, s.name, it->second->header_line));
      }
   }
   const Section *need(const std::string &name)
   {
      used.insert(name);
      auto it = by_name.find(name);
      if (it == by_name.end()) {
         errors.push_back(fmt::format("{}: missing section [{}]", file, name));
         return nullptr;
      }
      return it->second;
   }
   /** "draw.txt:LINE" of field @field in section @sec (the section's header
    *  line when the field is not written, the file alone without it). */
   std::string field_where(const std::string &sec, const std::string &field) const
   {
      auto it = by_name.find(sec);
      if (it == by_name.end())
         return file;
      for (const auto &[no, text] : it->second->lines)
         if (line_field(text) == field)
            return fmt::format("{}:{}", file, no);
      return fmt::format("{}:{}", file, it->second->header_line);
   }
   void unused(const VLG_DRAW_INFO &d)
   {
      for (const Section &s : secs)
         if (!used.count(s.name))
            errors.push_back(fmt::format(
               "{}:{}: section [{}] is not part of this draw (draw_info: kind {}, {} vertex "
               "elements, {} vertex buffers, vs {}/{} and fs {}/{} textures/samplers)",
               file, s.header_line, s.name, name_or_number(vlg_draw_kind_name(d.kind), d.kind),
               d.num_vertex_elements, d.num_vertex_buffers, d.vs_num_textures, d.vs_num_samplers,
               d.fs_num_textures, d.fs_num_samplers));
   }
};

/* The sections of a draw with a pipeline: pipe_state, vertex elements and
 * buffers, textures and samplers, shader_state blocks, uniform buffers,
 * stream output; their words go into L at their addresses, the textures into
 * @tex, the shaders into @sh, the stream output into @r. */
void
load_pipeline_sections(Loader &L, DrawSections &D, const VLG_DRAW_INFO &d,
                       std::vector<VLG_TEXTURE> (&tex)[3], Shader (&sh)[3], Loaded &r)
{
   const std::string &file = D.file;
   std::vector<std::string> &errors = D.errors;
   auto need = [&](const std::string &name) { return D.need(name); };
   const unsigned nstages = d.gs ? 3 : 2;
   uint32_t pw[VLG_PIPE_STATE_LENGTH] = {};
   for (const PipeSubBlock &b : pipe_sub_blocks())
      if (const Section *s = need("pipe_state." + b.name))
         parse_section(*s, *b.info, file, pw + b.offset, errors, L.notes);
   L.add(d.pipe_state, pw, sizeof(pw), "draw.txt [pipe_state.*]");

   /* blocks name[0..n-1]; @n, draw_info.@count_field (or shader @stage's
    * num_buffers), is at most @limit, the machine's */
   auto array = [&](const char *name, unsigned n, unsigned limit, const char *count_sec,
                    const char *count_field, uint64_t base, const vlg_hw_struct_info &info,
                    auto &&each) {
      if (n > limit) {
         errors.push_back(fmt::format("{}: error: {} = {}: at most {} {} blocks (vlg_limits.h)",
                                      D.field_where(count_sec, count_field), count_field, n, limit,
                                      name));
         return;
      }
      for (unsigned i = 0; i < n; i++) {
         const std::string sec = array_section(name, i);
         std::vector<uint32_t> w(info.length);
         if (const Section *s = need(sec)) {
            parse_section(*s, info, file, w.data(), errors, L.notes);
            L.add(base + uint64_t(i) * info.length * 4, w.data(), w.size() * 4,
                  "draw.txt [" + sec + "]");
            each(w.data());
         }
      }
   };
   array("vertex_elements", d.num_vertex_elements, VLG_HW_MAX_VERTEX_ELEMENTS, "draw_info",
         "num_vertex_elements", d.vertex_elements, VLG_VERTEX_ELEMENT_info,
         [](const uint32_t *) {});
   array("vertex_buffers", d.num_vertex_buffers, VLG_HW_MAX_VERTEX_BUFFERS, "draw_info",
         "num_vertex_buffers", d.vertex_buffers, VLG_VERTEX_BUFFER_info, [](const uint32_t *) {});
   /* texture and sampler arrays of stage @s (0 VS, 1 FS, 2 GS) */
   auto stage_units = [&](const char *prefix, unsigned s, unsigned ntex, uint64_t textures,
                          unsigned nsamp, uint64_t samplers) {
      const std::string ntex_field = fmt::format("{}_num_textures", prefix);
      const std::string nsamp_field = fmt::format("{}_num_samplers", prefix);
      array(fmt::format("{}_textures", prefix).c_str(), ntex, VLG_NUM_TEX_UNITS, "draw_info",
            ntex_field.c_str(), textures, VLG_TEXTURE_info, [&](const uint32_t *w) {
               VLG_TEXTURE t;
               VLG_TEXTURE_unpack(w, &t);
               tex[s].push_back(t);
            });
      array(fmt::format("{}_samplers", prefix).c_str(), nsamp, VLG_NUM_TEX_UNITS, "draw_info",
            nsamp_field.c_str(), samplers, VLG_SAMPLER_info, [](const uint32_t *) {});
   };
   stage_units("vs", 0, d.vs_num_textures, d.vs_textures, d.vs_num_samplers, d.vs_samplers);
   stage_units("fs", 1, d.fs_num_textures, d.fs_textures, d.fs_num_samplers, d.fs_samplers);
   if (d.gs)
      stage_units("gs", 2, d.gs_num_textures, d.gs_textures, d.gs_num_samplers, d.gs_samplers);
   for (unsigned s = 0; s < nstages; s++) {
      uint32_t w[VLG_SHADER_STATE_LENGTH] = {};
      if (const Section *sec = need(kStage[s])) {
         parse_elided_section(*sec, VLG_SHADER_STATE_info, file, w, errors, L.notes);
         VLG_SHADER_STATE_unpack(w, &sh[s].ss);
         sh[s].present = true;
         sh[s].addr = s == 0 ? d.vs : s == 1 ? d.fs : d.gs;
      }
   }
   /* uniform buffers of each shader (LDB slots) */
   for (unsigned s = 0; s < nstages; s++) {
      if (!sh[s].present || sh[s].ss.num_buffers == 0)
         continue;
      array(fmt::format("{}_buffers", kStage[s]).c_str(), sh[s].ss.num_buffers, VLG_NUM_BUFFERS,
            kStage[s], "num_buffers", sh[s].ss.buffers, VLG_BUFFER_info, [](const uint32_t *) {});
   }
   if (d.stream_output) {
      uint32_t w[VLG_STREAM_OUTPUT_LENGTH] = {};
      if (const Section *sec = need("stream_output")) {
         parse_elided_section(*sec, VLG_STREAM_OUTPUT_info, file, w, errors, L.notes);
         VLG_STREAM_OUTPUT_unpack(w, &r.so);
         r.have_so = true;
         L.add(d.stream_output, w, sizeof(w), "draw.txt [stream_output]");
      }
   }
}

/* code and global buffer of each shader (sizes follow the files; a grown one
 * moves later: move_grown_shaders) */
void
load_shader_data(Loader &L, Shader (&sh)[3], unsigned nstages)
{
   for (unsigned s = 0; s < nstages; s++) {
      Shader &x = sh[s];
      x.code = load_code(L, kStage[s]);
      if (x.code.size() != x.ss.code_size) {
         L.notes.push_back(fmt::format("{}.s: {} units, draw.txt has {}.code_size = {}: "
                                       "code_size set to {}",
                                       kStage[s], x.code.size(), kStage[s], x.ss.code_size,
                                       x.code.size()));
         x.move_code = x.code.size() > x.ss.code_size;
      }
      const std::string cf = fmt::format("consts-{}.txt", kStage[s]);
      if (!L.exists(cf))
         throw DumpError(
            fmt::format("{}: missing (the {} shader's global buffer)", L.path(cf), kStage[s]));
      x.consts = parse_consts(read_text(L.path(cf)), L.path(cf), VLG_NUM_GLOBAL);
      const uint32_t n = uint32_t(x.consts.size() / 4);
      if (n != x.ss.num_consts) {
         L.notes.push_back(fmt::format("{}: {} entries, draw.txt has {}.num_consts = {}: "
                                       "num_consts set to {}",
                                       cf, n, kStage[s], x.ss.num_consts, n));
         x.move_consts = n > x.ss.num_consts;
      }
      if (!x.move_code)
         L.add(x.ss.code, x.code.data(), x.code.size() * 4, fmt::format("{}.s", kStage[s]));
      if (!x.move_consts)
         L.add(x.ss.consts, x.consts.data(), x.consts.size() * 4, cf);
      x.ss.code_size = uint32_t(x.code.size());
      x.ss.num_consts = n;
   }
}

/** The texture images of the dump in @dir: the layers z of every
 *  tex-<stage><unit>-level<l>-layer<z>.png/.bin, by the name of layer 0
 *  without extension. */
std::map<std::string, std::set<unsigned>>
texture_layer_files(const std::string &dir)
{
   std::map<std::string, std::set<unsigned>> out;
   for (const fs::directory_entry &e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      char stage[3] = "";
      unsigned unit = 0, level = 0, layer = 0;
      int end = 0;
      if (std::sscanf(name.c_str(), "tex-%2[a-z]%u-level%u-layer%u.%*3[a-z]%n", stage, &unit,
                      &level, &layer, &end) != 4 ||
          size_t(end) != name.size())
         continue;
      const std::string base = texture_file_base(stage, unit, level, layer);
      if (name != base + ".png" && name != base + ".bin")
         continue; /* not the writer's spelling ("+1", "01") */
      out[texture_file_base(stage, unit, level, 0)].insert(layer);
   }
   return out;
}

/* index bytes, vertex-buffer bytes and texture images */
void
load_vertex_and_texture_data(Loader &L, const VLG_DRAW_INFO &d,
                             const std::vector<VLG_TEXTURE> (&tex)[3], unsigned nstages)
{
   if (d.index_size != VLG_INDEX_SIZE_NONE && (d.count || d.indirect)) {
      if (L.exists("index.hex")) {
         L.add_hex_file("index.hex");
      } else {
         L.notes.push_back("index.hex: not in the dump; the index buffer is left zero");
      }
   }
   for (unsigned i = 0; i < d.num_vertex_buffers; i++) {
      const std::string f = fmt::format("vb{}.hex", i);
      if (L.exists(f)) /* else the draw fetches none of its bytes */
         L.add_hex_file(f);
   }
   /* the layers the dump has files of: a texture's layer count (up to 65535
    * per level) never drives a loop, the directory does */
   const std::map<std::string, std::set<unsigned>> files = texture_layer_files(L.dir);
   for (unsigned s = 0; s < nstages; s++) {
      for (unsigned i = 0; i < tex[s].size(); i++) {
         const VLG_TEXTURE &t = tex[s][i];
         const unsigned levels = std::min<unsigned>(t.num_levels, VLG_HW_MAX_TEXTURE_LEVELS);
         for (unsigned l = 0; l < levels; l++) {
            const TexLevel lv = texture_level_size(t, l);
            const std::string what = fmt::format("{}_textures[{}] level {}", kStage[s], i, l);
            unsigned found = 0;
            const auto it = files.find(texture_file_base(kStage[s], i, l, 0));
            for (const unsigned z : it == files.end() ? std::set<unsigned>{} : it->second) {
               if (z >= lv.layers)
                  break;
               found++;
               L.add_image(texture_file_base(kStage[s], i, l, z), t.format, lv.width, lv.height,
                           t.address + t.level[l].offset + uint64_t(z) * t.level[l].layer_stride,
                           t.level[l].row_pitch, fmt::format("{} layer {}", what, z));
            }
            if (found < lv.layers)
               L.notes.push_back(fmt::format("{}: {} of its {} layers have no {}.png/.bin in the "
                                             "dump; left zero",
                                             what, lv.layers - found, lv.layers,
                                             texture_file_base(kStage[s], i, l, 0)));
         }
      }
   }
}

/* uniform-buffer bytes and stream output (buffers before the draw,
 * filled_size words, query counters): absolute addresses in the files */
void
load_hex_files(Loader &L, const VLG_DRAW_INFO &d, const Shader (&sh)[3], unsigned nstages,
               bool have_so)
{
   std::vector<std::string> hexfiles;
   for (unsigned s = 0; s < nstages; s++)
      if (sh[s].present && sh[s].ss.num_buffers <= VLG_NUM_BUFFERS)
         for (unsigned i = 0; i < sh[s].ss.num_buffers; i++)
            hexfiles.push_back(fmt::format("{}-buffer{}.hex", kStage[s], i));
   if (have_so) {
      for (unsigned i = 0; i < 4; i++)
         hexfiles.push_back(fmt::format("so{}.hex", i));
      hexfiles.push_back("so-counters.hex");
   }
   if (d.occlusion_counter)
      hexfiles.push_back("occlusion.hex");
   if (d.indirect)
      hexfiles.push_back("indirect.hex");
   for (const std::string &f : hexfiles) {
      if (L.exists(f)) /* else unbound, empty or not dumped (command.txt notes say which) */
         L.add_hex_file(f);
   }
}

/* grown shader data moves above everything else; then every shader_state */
void
move_grown_shaders(Loader &L, Shader (&sh)[3], unsigned nstages)
{
   uint64_t top = (L.end_address() + 255) & ~uint64_t(255);
   for (unsigned s = 0; s < nstages; s++) {
      Shader &x = sh[s];
      if (x.move_code) {
         L.notes.push_back(fmt::format("{}.s: the code grew, moved from 0x{:x} to 0x{:x}",
                                       kStage[s], x.ss.code, top));
         x.ss.code = top;
         L.add(top, x.code.data(), x.code.size() * 4, fmt::format("{}.s", kStage[s]));
         top = (top + x.code.size() * 4 + 255) & ~uint64_t(255);
      }
      if (x.move_consts) {
         L.notes.push_back(fmt::format("consts-{}.txt: the global buffer grew, moved from "
                                       "0x{:x} to 0x{:x}",
                                       kStage[s], x.ss.consts, top));
         x.ss.consts = top;
         L.add(top, x.consts.data(), x.consts.size() * 4, fmt::format("consts-{}.txt", kStage[s]));
         top = (top + x.consts.size() * 4 + 255) & ~uint64_t(255);
      }
      uint32_t w[VLG_SHADER_STATE_LENGTH];
      VLG_SHADER_STATE_pack(w, &x.ss);
      L.add(x.addr, w, sizeof(w), fmt::format("draw.txt [{}]", kStage[s]));
   }
}

Loaded
load_dump(Loader &L)
{
   Loaded r;
   load_command(L, r);

   /* draw part */
   std::vector<std::string> errors;
   DrawSections D(L.path(kDrawFile), errors);
   if (!errors.empty())
      fail(errors);
   const std::string &file = D.file;

   uint32_t dw[VLG_DRAW_INFO_LENGTH] = {};
   if (const Section *s = D.need("draw_info"))
      parse_section(*s, VLG_DRAW_INFO_info, file, dw, errors, L.notes);
   if (!errors.empty())
      fail(errors);
   VLG_DRAW_INFO_unpack(dw, &r.d);
   const VLG_DRAW_INFO &d = r.d;
   L.add(r.cmd.draw_info, dw, sizeof(dw), "draw.txt [draw_info]");

   uint32_t fbw[VLG_FRAMEBUFFER_LENGTH] = {};
   if (const Section *s = D.need("framebuffer")) {
      parse_section(*s, VLG_FRAMEBUFFER_info, file, fbw, errors, L.notes);
      VLG_FRAMEBUFFER_unpack(fbw, &r.fb);
      r.have_fb = true;
   }

   /* CLEAR and RESOLVE have no pipeline state, shaders or vertex data */
   const bool clear = fixed_function_kind(d.kind);
   if (d.kind == VLG_DRAW_KIND_RESOLVE) {
      uint32_t w[VLG_SURFACE_LENGTH] = {};
      if (const Section *s = D.need("resolve_dst")) {
         parse_section(*s, VLG_SURFACE_info, file, w, errors, L.notes);
         VLG_SURFACE_unpack(w, &r.resolve);
         r.have_resolve = true;
         L.add(d.resolve_dst, w, sizeof(w), "draw.txt [resolve_dst]");
      }
   }
   std::vector<VLG_TEXTURE> tex[3];
   Shader sh[3];
   const unsigned nstages = d.gs ? 3 : 2;
   if (!clear)
      load_pipeline_sections(L, D, d, tex, sh, r);
   D.unused(d);
   if (!errors.empty())
      fail(errors);

   /* data part */
   if (!clear) {
      load_shader_data(L, sh, nstages);
      load_vertex_and_texture_data(L, d, tex, nstages);
      load_hex_files(L, d, sh, nstages, r.have_so);
   }

   /* render targets (and a RESOLVE destination) before the draw */
   for (const SurfaceFile &f : surface_files(r))
      L.add_image(f.name + "-before", f.image.format, f.image.width, f.image.height,
                  f.image.address, f.image.pitch, f.what);
   L.add(d.framebuffer, fbw, sizeof(fbw), "draw.txt [framebuffer]");

   if (!clear)
      move_grown_shaders(L, sh, nstages);
   return r;
}

class ReplayHost final : public GpuHost {
 public:
   const Display *display(uint32_t) const override { return nullptr; }
   bool snapshot_draw(const DrawContext &) override { return false; }
   void before_draw(const DrawContext &, const Vram &) override {}
   void after_draw(const DrawContext &, const Vram &, const DrawReport &) override {}
};

uint64_t
draw_number_of(const std::string &dir)
{
   std::string base = fs::path(dir).filename().string();
   if (base.empty())
      base = fs::path(dir).parent_path().filename().string();
   uint64_t n = 0;
   if (base.rfind("draw-", 0) == 0) {
      std::istringstream in(base.substr(5));
      in >> n;
   }
   return n;
}

/** Compare the w x h image at @addr/@pitch of @vram with the dump's BASE
 *  (rows packed). */
ReplayComparison
compare(const Loader &L, const std::string &name, const std::string &base, const Vram &vram,
        const VLG_SURFACE &s)
{
   ReplayComparison c;
   c.name = name;
   const unsigned bpp = vlg_format_bytes(s.format);
   const uint64_t row = uint64_t(s.width) * bpp;
   if (!vram.contains(s.address, rows_extent(s.pitch, row, s.height)))
      return c;
   std::optional<std::vector<uint8_t>> want;
   try {
      want = L.load_image(base, s.format, s.width, s.height);
   } catch (const DumpError &e) {
      c.first_difference = std::string("cannot read the dump's image: ") + e.what();
      return c;
   }
   if (!want)
      return c;
   c.compared = true;
   c.pixels = uint64_t(s.width) * s.height;
   for (unsigned y = 0; y < s.height; y++) {
      const uint8_t *got = vram.data() + s.address + uint64_t(y) * s.pitch;
      const uint8_t *exp = want->data() + size_t(y) * row;
      for (unsigned x = 0; x < s.width; x++) {
         if (std::memcmp(got + size_t(x) * bpp, exp + size_t(x) * bpp, bpp) == 0)
            continue;
         if (c.differing++ == 0) {
            std::string g, e;
            for (unsigned b = 0; b < bpp; b++) {
               g += fmt::format("{:02x}", got[size_t(x) * bpp + b]);
               e += fmt::format("{:02x}", exp[size_t(x) * bpp + b]);
            }
            c.first_difference = fmt::format("({}, {}): replay {}, dump {}", x, y, g, e);
         }
      }
   }
   return c;
}

/** Compare the bytes of the dump's hex file @file (absolute addresses) with
 *  @vram: "so0" against so0-after.hex. Counts bytes. */
ReplayComparison
compare_hex(const Loader &L, const std::string &name, const std::string &file, const Vram &vram)
{
   ReplayComparison c;
   c.name = name;
   c.unit = "bytes";
   if (!L.exists(file))
      return c;
   std::vector<Segment> want;
   try {
      want = parse_hexdump(read_text(L.path(file)), L.path(file));
   } catch (const DumpError &e) {
      c.first_difference = std::string("cannot read the dump's file: ") + e.what();
      return c;
   }
   c.compared = true;
   for (const Segment &sg : want) {
      if (!vram.contains(sg.address, sg.bytes.size())) {
         c.differing += sg.bytes.size();
         c.pixels += sg.bytes.size();
         if (c.first_difference.empty())
            c.first_difference = fmt::format("0x{:x}: outside the replay VRAM", sg.address);
         continue;
      }
      const uint8_t *got = vram.data() + sg.address;
      for (size_t b = 0; b < sg.bytes.size(); b++) {
         c.pixels++;
         if (got[b] == sg.bytes[b])
            continue;
         if (c.differing++ == 0)
            c.first_difference = fmt::format("0x{:x}: replay {:02x}, dump {:02x}", sg.address + b,
                                             got[b], sg.bytes[b]);
      }
   }
   return c;
}

/** Write the bytes of the ranges listed in the dump's hex file @file, as
 *  they are in @vram after the replay, to OUT/@name.hex. */
void
write_hex_like(const Loader &L, const std::string &out, const std::string &name,
               const std::string &file, const Vram &vram, HexComment comment,
               std::vector<std::string> &outputs)
{
   if (!L.exists(file))
      return;
   std::string text = fmt::format("# {} after the replayed draw (the ranges of {})\n", name, file);
   for (const Segment &sg : parse_hexdump(read_text(L.path(file)), L.path(file)))
      if (vram.contains(sg.address, sg.bytes.size()))
         text += hexdump(sg.address, vram.data() + sg.address, sg.bytes.size(), comment);
   const std::string path = (fs::path(out) / (name + ".hex")).string();
   write_text(path, text);
   outputs.push_back(path);
}

void
write_surface(const std::string &out, const std::string &name, const Vram &vram,
              const VLG_SURFACE &s, std::vector<std::string> &outputs)
{
   const ImageCodec c = image_codec(s.format);
   const uint64_t row = uint64_t(s.width) * c.bpp;
   if (c.bpp == 0 || !vram.contains(s.address, rows_extent(s.pitch, row, s.height)))
      return;
   const uint8_t *src = vram.data() + s.address;
   std::vector<uint8_t> raw(size_t(row) * s.height);
   for (unsigned y = 0; y < s.height; y++)
      std::memcpy(&raw[size_t(y) * row], src + uint64_t(y) * s.pitch, row);
   const std::string bin = (fs::path(out) / (name + ".bin")).string();
   write_file(bin, raw.data(), raw.size());
   outputs.push_back(bin);
   if (c.supported && s.width && s.height) {
      const std::string png = (fs::path(out) / (name + ".png")).string();
      const std::vector<uint8_t> px = image_to_png_pixels(c, src, s.pitch, s.width, s.height);
      write_png(png, s.width, s.height, c.channels, px.data());
      outputs.push_back(png);
   }
}

} // namespace

Config
dump_config(const std::string &dir)
{
   const fs::path p = fs::path(dir) / "config.json";
   if (!fs::exists(p))
      return Config{};
   return Config::load(p.string());
}

ReplayResult
replay_dump(const std::string &dir, Gpu &gpu, const Config &cfg, const std::string &out_dir)
{
   if (!fs::is_directory(dir))
      throw DumpError(fmt::format("{}: not a directory (expected a draw-NNNNNN directory of a "
                                  "dump)",
                                  dir));
   if (!fs::exists(fs::path(dir) / kCommandFile) && fs::exists(fs::path(dir) / "draw-000000"))
      throw DumpError(fmt::format("{}: this is the dump's top directory; replay one draw: {}/"
                                  "draw-NNNNNN",
                                  dir, dir));
   Loader L;
   L.dir = dir;
   L.vram_size = cfg.vram_size_bytes;
   const Loaded ld = load_dump(L);
   L.check_overlaps();

   ReplayResult res;
   res.draw_number = draw_number_of(dir);
   const char *kind = vlg_draw_kind_name(ld.d.kind);
   res.kind = kind ? kind : "?";

   /* the replay queue: DRAW + HALT above everything the package uses */
   const uint64_t queue = (L.end_address() + 255) & ~uint64_t(255);
   uint32_t q[VLG_CMD_DRAW_LENGTH + VLG_CMD_HALT_LENGTH];
   std::memcpy(q, ld.cmd_words, sizeof(ld.cmd_words));
   VLG_CMD_HALT halt;
   VLG_CMD_HALT_init(&halt);
   halt.opcode = VLG_CMD_OPCODE_HALT;
   halt.length = VLG_CMD_HALT_LENGTH;
   VLG_CMD_HALT_pack(q + VLG_CMD_DRAW_LENGTH, &halt);
   const uint64_t need = queue + sizeof(q);
   if (need > cfg.vram_size_bytes) {
      std::string what;
      for (const Piece &p : L.pieces)
         if (p.address + p.bytes.size() > cfg.vram_size_bytes) {
            what = fmt::format(" ({} at 0x{:x})", p.origin, p.address);
            break;
         }
      throw DumpError(fmt::format("{}: the dump needs VRAM up to 0x{:x}{}, but vram.size_bytes "
                                  "is 0x{:x}; replay with --set vram.size_bytes=...",
                                  dir, need, what, cfg.vram_size_bytes));
   }
   Vram vram(cfg.vram_size_bytes);
   for (const Piece &p : L.pieces)
      vram.write(p.address, p.bytes.data(), p.bytes.size(), "replay");
   vram.write(queue, q, sizeof(q), "replay");

   ReplayHost host;
   res.submit = gpu.execute(vram, queue, uint32_t(sizeof(q) / 4), host);
   res.notes = std::move(L.notes);
   if (!res.submit.draws.empty()) {
      res.report = res.submit.draws.front();
   } else if (!res.submit.faults.empty()) {
      res.report.faulted = true;
      res.report.fault_module = res.submit.faults.front().module;
      res.report.fault = res.submit.faults.front().text;
   }

   for (const SurfaceFile &f : surface_files(ld))
      res.comparisons.push_back(compare(L, f.name, f.name + "-after", vram, f.image));

   if (!fixed_function_kind(ld.d.kind) && ld.d.occlusion_counter)
      res.comparisons.push_back(compare_hex(L, "occlusion", "occlusion-after.hex", vram));
   if (ld.have_so) {
      for (unsigned i = 0; i < 4; i++)
         if (ld.so.buffers[i].enable)
            res.comparisons.push_back(
               compare_hex(L, fmt::format("so{}", i), fmt::format("so{}-after.hex", i), vram));
      if (ld.so.num_counters)
         res.comparisons.push_back(compare_hex(L, "so_counters", "so-counters-after.hex", vram));
   }

   if (!out_dir.empty()) {
      std::error_code ec;
      fs::create_directories(out_dir, ec);
      if (ec)
         throw DumpError(
            fmt::format("{}: cannot create the output directory: {}", out_dir, ec.message()));
      for (const SurfaceFile &f : surface_files(ld))
         write_surface(out_dir, f.name, vram, f.image, res.outputs);
      if (ld.have_so) {
         for (unsigned i = 0; i < 4; i++)
            if (ld.so.buffers[i].enable)
               write_hex_like(L, out_dir, fmt::format("so{}", i), fmt::format("so{}.hex", i), vram,
                              HexComment::Float32, res.outputs);
         if (ld.so.num_counters)
            write_hex_like(L, out_dir, "so-counters", "so-counters.hex", vram, HexComment::Index32,
                           res.outputs);
      }
      if (!fixed_function_kind(ld.d.kind) && ld.d.occlusion_counter)
         write_hex_like(L, out_dir, "occlusion", "occlusion.hex", vram, HexComment::Index32,
                        res.outputs);
      nlohmann::ordered_json j;
      j["dump"] = dir;
      j["draw"] = res.draw_number;
      j["mode"] = gpu_mode_name(gpu.mode());
      j["report"] = draw_report_json(res.report);
      j["submit"] = {{"commands", res.submit.commands},
                     {"halted", res.submit.halted},
                     {"cycles", res.submit.cycles},
                     {"stats", res.submit.stats}};
      j["notes"] = res.notes;
      nlohmann::ordered_json cmp = nlohmann::ordered_json::array();
      for (const ReplayComparison &c : res.comparisons) {
         cmp.push_back({{"name", c.name},
                        {"compared", c.compared},
                        {"pixels", c.pixels},
                        {"differing", c.differing},
                        {"first_difference", c.first_difference}});
         if (std::strcmp(c.unit, "pixels") != 0)
            cmp.back()["unit"] = c.unit; /* "pixels" and "differing" count bytes */
      }
      j["compared_with_dump"] = cmp;
      j["config"] = cfg.to_json();
      const std::string path = (fs::path(out_dir) / "stats.json").string();
      write_text(path, j.dump(2) + "\n");
      res.outputs.push_back(path);
   }
   return res;
}

} // namespace vlgpu::sim
