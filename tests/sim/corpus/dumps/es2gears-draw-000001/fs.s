; fragment shader of draw 1: 1 units (4 bytes) at VRAM 0xb4400, entry unit 0.
; Canonical VL-IW assembly (docs/isa.md section 7); each instruction's comment is its unit
; address and units in hex. Edit and replay: the file is assembled again and fs.code_size
; follows the new size (docs/dump.md).
    BRC.END ; 0: F4200000
