; Seed 004 fig. 13: 3x3 matrix x vector (2D graphics). The paper: 8 fixed-length
; instructions, 5 VL-IW. Here: 3 instructions.
; R0.xyz = vector, C0..C2 = matrix columns, result in R1.xyz.
    MUL R1.xyz, R0.xxxx, C0
    MAD R1.xyz, R0.yyyy, C1, R1
    MAD R1.xyz, R0.zzzz, C2, R1
