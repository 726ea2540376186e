/*
 * Copyright © 2024 vlgpu authors
 * SPDX-License-Identifier: MIT
 */

/**
 * @file vlg_hw_info.h
 *
 * Generic, table-driven access to vlgpu hardware words: the metadata types the
 * generated tables (vlg_hw_tables.c, from vlgpu_hw.xml by gen_hw.py) are made
 * of, and the printer, parser and checker that work on any struct through
 * them. Include "vlg_hw.h" (generated) rather than this file: it includes this
 * one and adds the per-struct C structs, pack/unpack/init and info tables.
 *
 * All functions work on packed words: `dw` is an array of the struct's
 * `length` dwords (VLG_<STRUCT>_LENGTH), little-endian host order, exactly as
 * they sit in VRAM.
 *
 * Text form (what the per-draw dump shows, what replay reads back): one field
 * per line, `name = value`, where name is the field's path (`rt[1].colormask`,
 * `stencil[0].func`) and value is
 *   - bool:    true | false
 *   - uint:    decimal, 0x hex or 0b binary literal
 *   - hex:     printed 0x..., parsed like uint
 *   - int:     optional sign, decimal or 0x hex
 *   - float:   %.9g (round-trips fp32 exactly), inf/-inf; NaNs and any other
 *              exact bit pattern as bits(0x7fc00000); hex-float accepted
 *   - address: 0x... (64-bit VRAM byte address)
 *   - enum:    the value's name from vlgpu_hw.xml (BLEND_FACTOR values are
 *              written SRC_ALPHA, not 3)
 * `#` starts a comment; blank lines are ignored; whitespace around names and
 * values is ignored. The parser is locale independent.
 */

#ifndef VLG_HW_INFO_H
#define VLG_HW_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Type of one field as described in vlgpu_hw.xml. */
enum vlg_hw_type {
   VLG_HW_TYPE_UINT,
   VLG_HW_TYPE_INT,
   VLG_HW_TYPE_BOOL,
   VLG_HW_TYPE_FLOAT,
   VLG_HW_TYPE_ADDRESS,
   VLG_HW_TYPE_HEX,
   VLG_HW_TYPE_ENUM,
};

/** Problems VLG_<STRUCT>_unpack() and vlg_hw_check() report (a bit mask). */
#define VLG_HW_UNDESCRIBED_BITS (1u << 0) /**< a bit no field describes is set */
#define VLG_HW_INVALID_ENUM     (1u << 1) /**< an enum field holds an unnamed value */

struct vlg_hw_enum_entry {
   const char *name; /**< "SRC_ALPHA" */
   uint32_t value;
   const char *doc;
};

struct vlg_hw_enum_info {
   const char *name; /**< "blend_factor" (C type enum vlg_blend_factor) */
   const char *doc;
   unsigned num_values;
   const struct vlg_hw_enum_entry *values; /**< in XML order */
};

/**
 * One leaf field of a struct, with sub-struct and array elements flattened:
 * blend has "rt[0].blend_enable" .. "rt[3].colormask".
 */
struct vlg_hw_field_info {
   const char *name; /**< path, also the name in the text form */
   unsigned word;    /**< first dword of the field inside the struct */
   unsigned lo, hi;  /**< bit range inside `word` (ADDRESS: 0..63 over word, word + 1) */
   enum vlg_hw_type type;
   const struct vlg_hw_enum_info *enum_info; /**< ENUM only, else NULL */
   uint64_t default_raw; /**< packed default value (init() and missing fields in text) */
   size_t offset;        /**< byte offset of the member in the unpacked C struct */
   size_t size;          /**< sizeof the member in the unpacked C struct */
   const char *doc;
};

struct vlg_hw_struct_info {
   const char *name; /**< "blend" (C type struct VLG_BLEND) */
   const char *doc;
   unsigned length; /**< dwords (VLG_<STRUCT>_LENGTH) */
   size_t c_size;   /**< sizeof(struct VLG_<STRUCT>) */
   unsigned num_fields;
   const struct vlg_hw_field_info *fields; /**< leaves in bit order */
   const uint16_t *by_name;                /**< field indices sorted by name (strcmp) */
   const uint32_t *described;              /**< [length]: bits some field covers */
   /** VLG_<STRUCT>_init/pack/unpack through void pointers to the C struct. */
   void (*init)(void *v);
   void (*pack)(uint32_t *dw, const void *v);
   unsigned (*unpack)(const uint32_t *dw, void *v);
};

/** Every struct and enum of vlgpu_hw.xml, in XML order (generated). */
extern const struct vlg_hw_struct_info *const vlg_hw_structs[];
extern const unsigned vlg_hw_num_structs;
extern const struct vlg_hw_enum_info *const vlg_hw_enums[];
extern const unsigned vlg_hw_num_enums;

/** Lookups by XML name ("blend", "blend_factor"); NULL when unknown. */
const struct vlg_hw_struct_info *vlg_hw_struct_by_name(const char *name);
const struct vlg_hw_enum_info *vlg_hw_enum_by_name(const char *name);

/**
 * Field of @s whose path is the @len bytes at @name (need not be
 * NUL-terminated); NULL when there is none.
 */
const struct vlg_hw_field_info *vlg_hw_field_by_name(const struct vlg_hw_struct_info *s,
                                                     const char *name, size_t len);

/** Name of @value in enum @e, NULL if @value has no name. */
const char *vlg_hw_enum_name(const struct vlg_hw_enum_info *e, uint32_t value);

/** Value named by the @len bytes at @name; false if @e has no such name. */
bool vlg_hw_enum_value(const struct vlg_hw_enum_info *e, const char *name, size_t len,
                       uint32_t *value);

/** Raw (packed) bits of field @f in @dw, zero-extended. */
uint64_t vlg_hw_get_raw(const struct vlg_hw_field_info *f, const uint32_t *dw);

/** Store raw bits in field @f of @dw; bits of @raw beyond the field are ignored. */
void vlg_hw_set_raw(const struct vlg_hw_field_info *f, uint32_t *dw, uint64_t raw);

/**
 * One problem found in packed words: `field == NULL` means `bits` of dword
 * `word` are set but no field describes them; otherwise enum field `field`
 * holds `value`, which has no name.
 */
struct vlg_hw_problem {
   unsigned word;
   uint32_t bits;
   const struct vlg_hw_field_info *field;
   uint32_t value;
};

/**
 * Check @dw against @s: records up to @max problems in @problems (may be NULL
 * with @max 0) and returns how many there are in total (0 = clean: every set
 * bit is described and every enum value named). Sub-struct words are checked
 * too.
 */
unsigned vlg_hw_check(const struct vlg_hw_struct_info *s, const uint32_t *dw,
                      struct vlg_hw_problem *problems, unsigned max);

/**
 * Human-readable list of the problems of @dw, one per line, e.g.
 * "blend: word 1 bits 0x80000000 are not described by any field", written
 * snprintf-style into @buf (@size bytes, always NUL-terminated if @size > 0).
 * Returns the length the full text needs (0 when clean).
 */
size_t vlg_hw_describe_problems(const struct vlg_hw_struct_info *s, const uint32_t *dw, char *buf,
                                size_t size);

/** Flags of vlg_hw_print(). */
#define VLG_HW_PRINT_DOC (1u << 0) /**< append "  # <field doc>" to each line */

/**
 * Print every field of @dw as "name = value" lines (see the file comment),
 * each line prefixed with @indent (may be NULL). Values that cannot be shown
 * faithfully are flagged in comments: an enum value without a name prints as
 * its number followed by "# ERROR: ..." (the parser rejects it, so the error
 * cannot go unnoticed); set undescribed bits are listed in a trailing
 * "# WARNING: ..." comment (the parser cannot restore them).
 */
void vlg_hw_print(FILE *fp, const struct vlg_hw_struct_info *s, const uint32_t *dw,
                  const char *indent, unsigned flags);

/**
 * Text of one raw field value as vlg_hw_print() writes it, snprintf-style.
 * Returns the length the full text needs.
 */
size_t vlg_hw_format_value(const struct vlg_hw_field_info *f, uint64_t raw, char *buf, size_t size);

/**
 * Receives every parser diagnostic as one formatted line without newline:
 * "file:line: error: message" or "file:line: warning: message".
 */
typedef void (*vlg_hw_diag_fn)(void *user, const char *message);

struct vlg_hw_parser;

/**
 * Start parsing the text form of one @s. @filename is used in diagnostics
 * only ("<input>" if NULL). @diag may be NULL: messages then go to stderr.
 * Returns NULL only when out of memory.
 */
struct vlg_hw_parser *vlg_hw_parser_create(const struct vlg_hw_struct_info *s, const char *filename,
                                           vlg_hw_diag_fn diag, void *user);

/**
 * Feed one line (@len bytes, without the newline; a trailing '\r' is
 * ignored), which is line @line_no of the file. Errors (unknown field,
 * duplicate field, bad enum name, value out of range, malformed line) are
 * reported through the diag callback and counted; parsing goes on.
 * Returns false if the line had an error.
 */
bool vlg_hw_parser_line(struct vlg_hw_parser *p, unsigned line_no, const char *text, size_t len);

/**
 * Finish: fields that never appeared get their default (XML default, else 0)
 * and a warning naming them, reported at @line_no (the end of the section).
 * Writes the packed words to @dw (s->length dwords; only described bits are
 * ever set), frees @p and returns the number of errors (0 = success). With
 * errors, @dw holds every field that did parse. @num_warnings may be NULL.
 */
unsigned vlg_hw_parser_finish(struct vlg_hw_parser *p, unsigned line_no, uint32_t *dw,
                              unsigned *num_warnings);

/**
 * Parse a whole text (all lines belong to one @s); @first_line is the line
 * number of its first line in @filename. Returns the number of errors;
 * @dw as for vlg_hw_parser_finish().
 */
unsigned vlg_hw_parse(const struct vlg_hw_struct_info *s, const char *text, const char *filename,
                      unsigned first_line, uint32_t *dw, vlg_hw_diag_fn diag, void *user);

#ifdef __cplusplus
}
#endif

#endif /* VLG_HW_INFO_H */
