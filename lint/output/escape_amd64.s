#include "textflag.h"

// func copyPlain16(dst, src *byte, n int) int
//
// Sixteen bytes at a time (SSE2): each whole 16-byte block of src[:n] is
// stored at the same offset of dst, then checked; the result is the index
// in src[:n] of the first byte appendString does not copy as it is (outside
// 0x20-0x7e, '"' or '\\'), else the length of the whole blocks (n rounded
// down to a multiple of 16). A byte is plain when its value plus one,
// signed, is above 0x20 and it is neither '"' nor '\\'.
TEXT ·copyPlain16(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVOU esc01<>(SB), X4
	MOVOU esc20<>(SB), X5
	MOVOU esc22<>(SB), X6
	MOVOU esc5c<>(SB), X7
	SUBQ $16, CX
	JL   done

loop:
	CMPQ AX, CX
	JG   done
	MOVOU (SI)(AX*1), X0
	MOVOU X0, (DI)(AX*1)
	MOVO X0, X1
	PADDB X4, X1
	PCMPGTB X5, X1
	MOVO X0, X2
	PCMPEQB X6, X2
	PCMPEQB X7, X0
	POR  X2, X0
	PMOVMSKB X1, BX
	PMOVMSKB X0, DX
	XORL $0xffff, BX
	ORL  DX, BX
	JNZ  found
	ADDQ $16, AX
	JMP  loop

found:
	BSFL BX, BX
	ADDQ BX, AX

done:
	MOVQ AX, ret+24(FP)
	RET

DATA esc01<>+0(SB)/8, $0x0101010101010101
DATA esc01<>+8(SB)/8, $0x0101010101010101
GLOBL esc01<>(SB), (RODATA|NOPTR), $16
DATA esc20<>+0(SB)/8, $0x2020202020202020
DATA esc20<>+8(SB)/8, $0x2020202020202020
GLOBL esc20<>(SB), (RODATA|NOPTR), $16
DATA esc22<>+0(SB)/8, $0x2222222222222222
DATA esc22<>+8(SB)/8, $0x2222222222222222
GLOBL esc22<>(SB), (RODATA|NOPTR), $16
DATA esc5c<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA esc5c<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL esc5c<>(SB), (RODATA|NOPTR), $16
