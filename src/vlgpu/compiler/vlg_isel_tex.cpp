/*
 * Copyright © 2026 vlgpu contributors
 * SPDX-License-Identifier: MIT
 *
 * vlg_isel_tex.cpp — instruction selection of texture instructions
 * (vlg_isel.h): the TEX-family opcode, the sampler dimensions the hardware
 * has, the coordinate group (R[c].xyz coordinates, .w shadow reference /
 * TXF LOD / TG4 component, R[c+1] bias or LOD or ddx, R[c+2] ddy;
 * docs/isa.md §5, docs/compiler.md "Instruction selection").
 */
#include "vlg_isel.h"

namespace vlgpu {

namespace {

/* samplerCubeArray(Shadow): the texture unit's CUBE_ARRAY target, sampled
 * with the .CUBEARRAY operands */
bool
is_cube_array(const nir_tex_instr *tex)
{
   return tex->sampler_dim == GLSL_SAMPLER_DIM_CUBE && tex->is_array;
}

bool
tex_instr_has_comparator(const nir_tex_instr *tex)
{
   return nir_tex_instr_src_index(tex, nir_tex_src_comparator) >= 0;
}

} // namespace

/* The VL-IW op of @tex (TEX, TXB, TXL, TXD, TXF, TXQ, TG4). */
unsigned
Isel::tex_opcode(nir_tex_instr *tex)
{
   unsigned op;
   switch (tex->op) {
   case nir_texop_tex:
      op = VLG_OP_TEX;
      break;
   case nir_texop_txb:
      op = VLG_OP_TXB;
      break;
   case nir_texop_txl:
      op = VLG_OP_TXL;
      break;
   case nir_texop_txd:
      op = VLG_OP_TXD;
      break;
   case nir_texop_txf:
      op = VLG_OP_TXF;
      break;
   case nir_texop_txs:
   case nir_texop_query_levels:
      op = VLG_OP_TXQ;
      break;
   case nir_texop_tg4:
      op = VLG_OP_TG4;
      break;
   default:
      unsupported("texture operation " + std::to_string((int)tex->op) + " (lod, txf_ms, ...)");
   }
   return op;
}

/* Refuses the sampler dimensions (and op/dimension pairs) the texture units do not have. */
void
Isel::check_sampler_dim(nir_tex_instr *tex, unsigned op)
{
   switch (tex->sampler_dim) {
   case GLSL_SAMPLER_DIM_1D:
   case GLSL_SAMPLER_DIM_2D:
   case GLSL_SAMPLER_DIM_3D:
      break;
   case GLSL_SAMPLER_DIM_RECT:
      /* a 2D texture whose sampler has normalized_coords = false (the
       * driver's samplers, as st/mesa asks for rectangle textures): the
       * texture unit samples it in texels, fetches and size queries are
       * those of a 2D one */
      break;
   case GLSL_SAMPLER_DIM_CUBE:
      /* cube arrays: the .CUBEARRAY operands; GLSL has no texelFetch of
       * cubes, and no gradients with a cube-array depth compare */
      if (tex->is_array && op == VLG_OP_TXD && tex_instr_has_comparator(tex))
         unsupported("textureGrad on a samplerCubeArrayShadow");
      break;
   case GLSL_SAMPLER_DIM_BUF:
      /* samplerBuffer (GL 3.1): texelFetch and textureSize only, on the
       * texture unit's BUFFER target (docs/hw.md texture_target) */
      if (op != VLG_OP_TXF && op != VLG_OP_TXQ)
         unsupported("sampling a buffer texture");
      break;
   default:
      unsupported("this sampler dimension (MS, external)");
   }
}

Isel::TexSources
Isel::tex_sources(nir_tex_instr *tex)
{
   TexSources t;
   for (unsigned i = 0; i < tex->num_srcs; i++) {
      const nir_src *s = &tex->src[i].src;
      switch (tex->src[i].src_type) {
      case nir_tex_src_coord:
         t.coord = s;
         break;
      case nir_tex_src_comparator:
         t.comparator = s;
         break;
      case nir_tex_src_bias:
         t.bias = s;
         break;
      case nir_tex_src_lod:
         t.lod = s;
         break;
      case nir_tex_src_ddx:
         t.ddx = s;
         break;
      case nir_tex_src_ddy:
         t.ddy = s;
         break;
      case nir_tex_src_offset:
         /* constant texel offsets: the TOFF Sub unit (emit_tex) */
         break;
      case nir_tex_src_texture_deref:
      case nir_tex_src_sampler_deref:
         unsupported("texture derefs (samplers not lowered)");
      default:
         unsupported(std::string("texture source ") + std::to_string((int)tex->src[i].src_type) +
                     " (offsets, indirect units, ...)");
      }
   }
   return t;
}

/* The coordinate group register of @tex (@op = tex_opcode): the coordinate
 * register itself for a plain TEX that can read it in place, else a new
 * vreg of tex_group_width(op) registers filled by MOVs. @read: components
 * the op reads from each register of the group. */
Operand
Isel::tex_group(nir_tex_instr *tex, unsigned op, const TexSources &t, uint8_t read[3])
{
   const nir_src *coord = t.coord, *comparator = t.comparator, *bias = t.bias, *lod = t.lod,
                 *ddx = t.ddx, *ddy = t.ddy;
   unsigned ncoord = tex->coord_components;
   uint8_t cmask = (1u << ncoord) - 1;
   const bool cube_array = is_cube_array(tex) && op != VLG_OP_TXF && op != VLG_OP_TXQ;
   unsigned width = tex_group_width(op, cube_array);
   bool shadow = comparator != nullptr;
   Operand group;
   /* where the shadow reference / gather component goes: R[c].w, or
    * R[c+1].w behind a cube array's cube index (docs/isa.md TEX) */
   const unsigned ref_reg = cube_array ? 1 : 0;

   bool direct = op == VLG_OP_TEX && !shadow && !cube_array && coord;
   if (direct) {
      Operand c = get_src(*coord);
      if (c.file == File::Reg && c.swz == VLG_SWZ_IDENTITY && !c.neg && !c.abs) {
         group = c;
         read[0] = cmask;
      } else {
         direct = false;
      }
   }
   if (!direct) {
      uint32_t g = S.new_vreg(width);
      group = reg(g);
      if (op == VLG_OP_TXQ) {
         if (tex->op == nir_texop_txs && lod)
            b.mov(reg(g), 0x1, get_src(*lod));
         else
            b.mov(reg(g), 0x1, imm_u(0));
         read[0] = 0x1;
      } else {
         if (!coord)
            VLG_ICE("texture op without coordinates");
         b.mov(reg(g), cmask, get_src(*coord));
         read[0] = cmask;
         if (shadow) {
            b.mov(reg(g, VLG_SWZ_IDENTITY, ref_reg), 0x8,
                  swz(get_src(*comparator), VLG_SWZ_BCAST(0)));
            read[ref_reg] |= 0x8;
         } else if (op == VLG_OP_TG4) {
            /* the gathered component (textureGather's comp) */
            b.mov(reg(g, VLG_SWZ_IDENTITY, ref_reg), 0x8, imm_u(tex->component));
            read[ref_reg] |= 0x8;
         }
         if (op == VLG_OP_TXF) {
            b.mov(reg(g), 0x8, lod ? swz(get_src(*lod), VLG_SWZ_BCAST(0)) : imm_u(0));
            read[0] |= 0x8;
         } else if (op == VLG_OP_TXB || op == VLG_OP_TXL) {
            const nir_src *l = op == VLG_OP_TXB ? bias : lod;
            b.mov(reg(g, VLG_SWZ_IDENTITY, 1), 0x1, l ? get_src(*l) : imm_u(0));
            read[1] |= 0x1;
         } else if (op == VLG_OP_TXD) {
            if (!ddx || !ddy)
               VLG_ICE("txd without gradients");
            unsigned gm = (1u << nir_src_num_components(*ddx)) - 1;
            b.mov(reg(g, VLG_SWZ_IDENTITY, 1), gm, get_src(*ddx));
            b.mov(reg(g, VLG_SWZ_IDENTITY, 2), gm, get_src(*ddy));
            read[1] |= gm;
            read[2] = gm;
         }
      }
   }
   return group;
}

void
Isel::emit_tex(nir_tex_instr *tex)
{
   unsigned op = tex_opcode(tex);
   check_sampler_dim(tex, op);
   if (tex->texture_index >= VLG_NUM_TEX_UNITS)
      throw CompileError("texture unit " + std::to_string(tex->texture_index) + " above 15");
   unsigned unit = tex->texture_index;
   S.samplers_used |= 1u << unit;
   if (nir->info.stage == MESA_SHADER_FRAGMENT && (op == VLG_OP_TEX || op == VLG_OP_TXB))
      S.uses_derivatives = true;

   TexSources srcs = tex_sources(tex);
   bool shadow = srcs.comparator != nullptr;
   uint8_t read[3] = {0, 0, 0};
   Operand group = tex_group(tex, op, srcs, read);

   unsigned n = nir_tex_instr_dest_size(tex);
   if (tex->op == nir_texop_query_levels) {
      uint32_t t = S.new_vreg();
      b.tex(op, reg(t), 0x8, group, unit, false, false, read[0], read[1], read[2]);
      Dst d = dest(tex->dest, 0x1);
      b.mov(d.op, d.wmask, reg(t, VLG_SWZ_BCAST(3)));
      return;
   }
   int8_t toff[3];
   if (!tex_unit_offsets(&tex->instr, toff))
      VLG_ICE("texel offsets nir_prepare should have lowered to coordinates");
   Dst d = dest(tex->dest, (1u << n) - 1);
   const bool fetch = op == VLG_OP_TXF || op == VLG_OP_TXQ;
   Instr &I = b.tex(op, d.op, d.wmask, group, unit, shadow && !fetch,
                    is_cube_array(tex) && !fetch, read[0], read[1], read[2]);
   std::memcpy(I.toff, toff, sizeof(toff));
}

} // namespace vlgpu
