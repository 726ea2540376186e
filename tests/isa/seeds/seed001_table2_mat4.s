; Seed 001 (Zhao et al.), tables 1-2: the vertex shader of the coloured
; square. TGSI:
;   MUL TEMP[0], IN[0].xxxx, CONST[0][0]
;   MAD TEMP[0], IN[0].yyyy, CONST[0][1], TEMP[0]
;   MAD TEMP[0], IN[0].zzzz, CONST[0][2], TEMP[0]
;   MAD OUT[0],  IN[0].wwww, CONST[0][3], TEMP[0]
;   MOV OUT[1],  IN[1]
; The seed's scalar GPU needs 16 instructions for the matrix (table 2, one
; MUL/MAD per output component and matrix column). VL-IW works on vec4, so a
; column is one instruction: MUL fits one unit (A = R0 broadcast, B = C0 from
; the global buffer), each MAD is Main + TERN (the third operand).
; Registers: R0 = position (IN[0]), R1 = colour (IN[1]); outputs R2, R3.
    MUL R4, R0.xxxx, C0
    MAD R4, R0.yyyy, C1, R4
    MAD R4, R0.zzzz, C2, R4
    MAD R2, R0.wwww, C3, R4
    MOV R3, R1
    BRC.END
