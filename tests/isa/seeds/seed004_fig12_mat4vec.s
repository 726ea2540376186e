; Seed 004 fig. 12: 4x4 matrix x vector. Fixed-length instructions need 10,
; VL-IW at most 6 (the paper's claim). Here: 4 instructions.
; R0 = vector, C0..C3 = matrix columns, result in R1.
    MUL R1, R0.xxxx, C0
    MAD R1, R0.yyyy, C1, R1
    MAD R1, R0.zzzz, C2, R1
    MAD R1, R0.wwww, C3, R1
