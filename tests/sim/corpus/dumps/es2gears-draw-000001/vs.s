; vertex shader of draw 1: 28 units (112 bytes) at VRAM 0xb4300, entry unit 0.
; Canonical VL-IW assembly (docs/isa.md section 7); each instruction's comment is its unit
; address and units in hex. Edit and replay: the file is assembled again and vs.code_size
; follows the new size (docs/dump.md).
    MUL R1.xyz, R3.yyyy, C3 | MOV R5.w, C1 ; 0: 0B08C6EA C1287922
    DP3 R0.x, C0, C0 | MOV R6.x, C3.wwww ; 2: 0D000022 00393920 C130FFC6
    MUL R2, R4.yyyy, C5 ; 5: 8B110BEA
    MAD R1.xyz, R3.xxxx, C2, R1 ; 6: 0C08C4E6 9000F200
    RSQ R0.x, R0 | MAD R2, R4.xxxx, C4, R2 ; 8: 10003904 4C1109E6 D0017200
    MAD R1.xyz, R3.zzzz, C8, R1 ; 11: 0C08D0EE 9000F200
    MAD R2, R4.zzzz, C6, R2 ; 13: 0C110DEE 90017200
    ADD R3.xyz, R1, C9 | MUL R0.xyz, R0.xxxx, C0 ; 15: 041852E2 CB0000E6
    DP3 R1.x, R3, R3 ; 17: 8D08C620
    ADD R2, R2, C7 ; 18: 84108FE2
    RSQ R1.x, R1 ; 19: 90087904
    MUL R1.xyz, R1.xxxx, R3 ; 20: 8B0846E4
    DP3 R0.x, R1, R0 ; 21: 8D004020
    MAX R0.x, R0, C0.wwww ; 22: 06000022 80393FC0
    ADD R0.x, C2.wwww, R0 ; 24: 04008020 803FF920
    MUL R5.xyz, R0.xxxx, C1 ; 26: 8B2802E6
    BRC.END ; 27: F4200000
