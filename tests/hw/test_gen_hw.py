# Copyright © 2024 vlgpu authors
# SPDX-License-Identifier: MIT
"""gen_hw.py must reject malformed hardware descriptions with the XML line.

Usage: python3 test_gen_hw.py path/to/gen_hw.py
"""

import importlib.util
import sys
import textwrap
import unittest

GEN_PATH = None
gen = None


def load(xml):
    desc = gen.Description('t.xml')
    desc.load(gen.parse_xml('t.xml', textwrap.dedent(xml).strip() + '\n'))
    return desc


E = '<enum name="mode" doc="d"><value name="A" value="0" doc="a"/><value name="B" value="5" doc="b"/></enum>'


class RejectsBadXml(unittest.TestCase):

    def expect_error(self, xml, line, fragment):
        with self.assertRaises(gen.HwError) as cm:
            load(xml)
        msg = str(cm.exception)
        self.assertTrue(msg.startswith(f't.xml:{line}: error: '), msg)
        self.assertIn(fragment, msg)

    def test_limit_bad_field(self):
        for attr, fragment in (('count="s.a"', 'limit l: s.a is not an array'),
                               ('range="s.b"', "'s.b' is not a struct.field")):
            with self.subTest(attr):
                self.expect_error(f'''
                    <vlgpu_hw>
                      <struct name="s" doc="d">
                        <field name="a" start="0:0" end="0:7" type="uint" doc="d"/>
                      </struct>
                      <limit name="l" {attr} doc="d"/>
                    </vlgpu_hw>''', 5, fragment)

    def test_limit_two_kinds(self):
        self.expect_error('''
            <vlgpu_hw>
              <limit name="l" value="4" count="s.a" doc="d"/>
            </vlgpu_hw>''', 2, 'needs exactly one of value, count, range')

    def test_limit_values(self):
        desc = load('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:4" type="uint" doc="d"/>
                <field name="b" start="1:0" end="1:7" count="6" type="uint" doc="d"/>
              </struct>
              <limit name="r" range="s.a" doc="d"/>
              <limit name="c" count="s.b" doc="d"/>
              <limit name="v" value="0x40" doc="d"/>
            </vlgpu_hw>''')
        self.assertEqual([(x.c_name, x.value) for x in desc.limits],
                         [('VLG_HW_MAX_R', 32), ('VLG_HW_MAX_C', 6), ('VLG_HW_MAX_V', 64)])

    def test_overlap(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:7" type="uint" doc="d"/>
                <field name="b" start="0:7" end="0:8" type="uint" doc="d"/>
              </struct>
            </vlgpu_hw>''', 4, 'b overlaps a at word 0 bit 7')

    def format_error(self, value, fragment):
        """A format enum whose value B has the attributes @value."""
        self.expect_error(f'''
            <vlgpu_hw>
              <enum name="format" doc="d">
                <value name="NONE" value="0" bytes="0" usage="" doc="n"/>
                <value name="R8G8B8A8_UNORM" value="1" bytes="4" usage="rt" layout="array" type="unorm" bits="8 8 8 8" swizzle="xyzw" doc="a"/>
                <value name="B" value="2" {value} doc="b"/>
              </enum>
            </vlgpu_hw>''', 5, fragment)

    def test_format_layouts(self):
        self.format_error('bytes="4" usage="tex"', 'a usable format needs a layout')
        self.format_error('bytes="4" usage="tex" layout="array" type="unorm" bits="8 8 8" '
                          'swizzle="xyz1"', 'bits are 4 widths')
        self.format_error('bytes="3" usage="tex" layout="array" type="unorm" bits="8 8 8 8" '
                          'swizzle="xyzw"', 'add up to 32 bits, bytes says 24')
        self.format_error('bytes="2" usage="tex" layout="packed" type="unorm" bits="5 6 6 0" '
                          'swizzle="zyx1"', 'more than the 16-bit word')
        self.format_error('bytes="4" usage="tex" layout="array" type="unorm" bits="8 8 8 0" '
                          'pad="8" swizzle="xyzw"', "swizzle 'xyzw'")
        self.format_error('bytes="4" usage="tex" layout="array" type="norm" bits="8 8 8 8" '
                          'swizzle="xyzw"', "type 'norm'")
        self.format_error('bytes="4" usage="tex" layout="array" type="unorm" bits="8 8 8 8" '
                          'swizzle="xyzw" srgb="true"', 'names its linear twin')
        self.format_error('bytes="4" usage="tex" layout="array" type="unorm" bits="16 16 0 0" '
                          'swizzle="xy01" srgb="true" linear="R8G8B8A8_UNORM"',
                          'srgb formats are 8-bit unorm')
        self.format_error('bytes="4" usage="tex" layout="array" type="unorm" bits="8 8 16 0" '
                          'swizzle="xyz1" srgb="true" linear="R8G8B8A8_UNORM"',
                          'srgb formats are 8-bit unorm')
        self.format_error('bytes="2" usage="zs" layout="depth_stencil" zs="Z24Lo"',
                          'zs Z24Lo is 4 bytes, bytes says 2')
        self.format_error('bytes="4" usage="tex" layout="stencil_view" stencil_byte="4"',
                          'stencil_byte 4 is outside the 4 bytes')
        self.format_error('bytes="4" usage="tex" layout="rgb9e5" type="float"',
                          "attribute 'type' does not belong to layout rgb9e5")

    def test_overlap_through_array(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:7" count="3" type="uint" doc="d"/>
                <field name="b" start="0:16" end="0:16" type="bool" doc="d"/>
              </struct>
            </vlgpu_hw>''', 4, 'b overlaps a[2] at word 0 bit 16')

    def test_enum_too_wide(self):
        self.expect_error(f'''
            <vlgpu_hw>
              {E}
              <struct name="s" doc="d">
                <field name="m" start="0:0" end="0:1" type="mode" doc="d"/>
              </struct>
            </vlgpu_hw>''', 4, '2 bits cannot hold mode value B = 5')

    def test_unknown_type(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:7" type="unit" doc="d"/>
              </struct>
            </vlgpu_hw>''', 3, "unknown type 'unit'")

    def test_missing_doc(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:7" type="uint"/>
              </struct>
            </vlgpu_hw>''', 3, "needs attribute 'doc'")

    def test_unknown_attribute(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:7" type="uint" doc="d" size="8"/>
              </struct>
            </vlgpu_hw>''', 3, "unknown attribute 'size'")

    def test_default_out_of_range(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:3" type="uint" default="16" doc="d"/>
              </struct>
            </vlgpu_hw>''', 3, 'default 16 does not fit 4 bits')

    def test_bad_enum_default(self):
        self.expect_error(f'''
            <vlgpu_hw>
              {E}
              <struct name="s" doc="d">
                <field name="m" start="0:0" end="0:3" type="mode" default="C" doc="d"/>
              </struct>
            </vlgpu_hw>''', 4, "default 'C' is not a value of enum mode")

    def test_float_not_whole_word(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="f" start="0:0" end="0:15" type="float" doc="d"/>
              </struct>
            </vlgpu_hw>''', 3, 'a float is one whole word')

    def test_address_misaligned(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:16" end="2:15" type="address" doc="d"/>
              </struct>
            </vlgpu_hw>''', 3, 'an address is two whole words')

    def test_crosses_word(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:24" end="1:7" type="uint" doc="d"/>
              </struct>
            </vlgpu_hw>''', 3, 'crosses a word boundary')

    def test_bool_width(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:1" type="bool" doc="d"/>
              </struct>
            </vlgpu_hw>''', 3, 'a bool is 1 bit')

    def test_struct_field_misaligned(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="t" doc="d"><field name="x" start="0:0" end="0:3" type="uint" doc="d"/></struct>
              <struct name="s" doc="d">
                <field name="a" start="0:4" type="t" doc="d"/>
              </struct>
            </vlgpu_hw>''', 4, 'must start at bit 0 of a word')

    def test_struct_shares_word(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="t" doc="d"><field name="x" start="0:0" end="0:3" type="uint" doc="d"/></struct>
              <struct name="s" doc="d">
                <field name="a" start="0:0" type="t" doc="d"/>
                <field name="b" start="0:8" end="0:9" type="uint" doc="d"/>
              </struct>
            </vlgpu_hw>''', 5, 'shares a word with a sub-struct')

    def test_length_too_small(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d" length="1">
                <field name="a" start="1:0" end="1:3" type="uint" doc="d"/>
              </struct>
            </vlgpu_hw>''', 2, 'length 1 but fields need 2 dwords')

    def test_duplicate_field(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" end="0:3" type="uint" doc="d"/>
                <field name="a" start="0:4" end="0:7" type="uint" doc="d"/>
              </struct>
            </vlgpu_hw>''', 4, 'duplicate field a')

    def test_duplicate_enum_value(self):
        self.expect_error('''
            <vlgpu_hw>
              <enum name="e" doc="d">
                <value name="A" value="1" doc="a"/>
                <value name="B" value="1" doc="b"/>
              </enum>
            </vlgpu_hw>''', 4, 'enum e: B and A have the same value 1')

    def test_self_containing_struct(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
                <field name="a" start="0:0" type="s" doc="d"/>
              </struct>
            </vlgpu_hw>''', 2, 'contains itself')

    def test_type_name_clash(self):
        self.expect_error('''
            <vlgpu_hw>
              <enum name="blend" doc="d"><value name="A" value="0" doc="a"/></enum>
              <struct name="blend" doc="d"><field name="x" start="0:0" end="0:3" type="uint" doc="d"/></struct>
            </vlgpu_hw>''', 3, "'blend' is already defined")

    def test_generated_name_clash(self):
        # enum cmd value INFO is VLG_CMD_INFO, the C name of struct cmd_info.
        self.expect_error('''
            <vlgpu_hw>
              <enum name="cmd" doc="d"><value name="INFO" value="0" doc="a"/></enum>
              <struct name="cmd_info" doc="d"><field name="x" start="0:0" end="0:3" type="uint" doc="d"/></struct>
            </vlgpu_hw>''', 3,
            'generated C name VLG_CMD_INFO of struct cmd_info clashes with enum value cmd.INFO')

    def test_reserved_name(self):
        self.expect_error('''
            <vlgpu_hw>
              <enum name="hw_type" doc="d"><value name="A" value="0" doc="a"/></enum>
            </vlgpu_hw>''', 2, 'names hw_* are reserved')

    def test_malformed_xml(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="d">
            </vlgpu_hw>''', 3, 'malformed XML')

    def test_multiline_doc(self):
        self.expect_error('''
            <vlgpu_hw>
              <struct name="s" doc="two
                lines"><field name="x" start="0:0" end="0:3" type="uint" doc="d"/></struct>
            </vlgpu_hw>''', 2, 'doc must be one line')


class AcceptsGoodXml(unittest.TestCase):

    def test_layout(self):
        desc = load(f'''
            <vlgpu_hw>
              {E}
              <struct name="inner" doc="d">
                <field name="x" start="0:0" end="0:3" type="uint" default="3" doc="d"/>
              </struct>
              <struct name="outer" doc="d">
                <field name="m" start="0:0" end="0:2" type="mode" default="B" doc="d"/>
                <field name="f" start="1:0" end="1:31" count="2" type="float" default="0.5" doc="d"/>
                <field name="i" start="3:0" count="2" type="inner" doc="d"/>
                <field name="r" start="160" end="167" count="2" stride="16" type="int" default="-1" doc="plain-integer bit positions"/>
              </struct>
            </vlgpu_hw>''')
        outer = desc.structs['outer']
        self.assertEqual(outer.length, 6)
        paths = [(l.path, l.word, l.lo, l.hi) for l in outer.leaves()]
        self.assertEqual(paths, [('m', 0, 0, 2), ('f[0]', 1, 0, 31), ('f[1]', 2, 0, 31),
                                 ('i[0].x', 3, 0, 3), ('i[1].x', 4, 0, 3),
                                 ('r[0]', 5, 0, 7), ('r[1]', 5, 16, 23)])
        self.assertEqual(outer.sub_words(), {3, 4})

    def test_sub_struct_before_use_in_c(self):
        desc = load('''
            <vlgpu_hw>
              <struct name="outer" doc="d"><field name="i" start="0:0" type="inner" doc="d"/></struct>
              <struct name="inner" doc="d"><field name="x" start="0:0" end="0:3" type="uint" doc="d"/></struct>
            </vlgpu_hw>''')
        self.assertEqual([s.name for s in desc.c_order], ['inner', 'outer'])
        header = gen.render(gen.HEADER_TEMPLATE, desc)
        self.assertLess(header.index('struct VLG_INNER {'), header.index('struct VLG_OUTER {'))

    def test_defaults_and_described_masks(self):
        desc = load(f'''
            <vlgpu_hw>
              {E}
              <struct name="s" doc="d">
                <field name="m" start="0:4" end="0:6" type="mode" default="B" doc="d"/>
                <field name="v" start="1:0" end="1:31" type="float" default="0.5" doc="d"/>
                <field name="n" start="2:8" end="2:15" type="int" default="-2" doc="d"/>
              </struct>
            </vlgpu_hw>''')
        s = desc.structs['s']
        self.assertEqual(s.described(), [0x70, 0xffffffff, 0xff00])
        self.assertEqual([f.default_raw for f in s.fields], [5, 0x3f000000, 0xfe])
        code = gen.StructCode(desc, s)
        self.assertIn('v->m = VLG_MODE_B;', code.defaults)
        self.assertIn('v->v = 0x1.0000000000000p-1f;', code.defaults)
        self.assertIn('v->n = -2;', code.defaults)


if __name__ == '__main__':
    GEN_PATH = sys.argv.pop(1)
    spec = importlib.util.spec_from_file_location('gen_hw', GEN_PATH)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    unittest.main(verbosity=1)
